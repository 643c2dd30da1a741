import { ApiError } from '@toolgate/contract';
import { hashCanonical } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { call } from './receipts-testing.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const declaration = {
  type: 'function',
  function: {
    name: 'create_pull_request',
    description: 'Opens a pull request.',
    parameters: { type: 'object', properties: { title: { type: 'string' } } },
  },
};

describe('schema store', () => {
  it('stores a declaration under its canonical hash, idempotently', async () => {
    const { client } = await api.identity('schema-gateway', ['gateway']);
    const hash = hashCanonical(declaration);
    expect(
      await call(client, 'receipts.putSchema', { params: { hash }, body: declaration }),
    ).toEqual({ hash, created: true });
    // Key order is not content: the same declaration spelled differently is the same schema.
    const reordered = { function: declaration.function, type: 'function' };
    expect(await call(client, 'receipts.putSchema', { params: { hash }, body: reordered })).toEqual(
      {
        hash,
        created: false,
      },
    );
    const { client: auditor } = await api.identity('schema-auditor', ['auditor']);
    expect(await auditor.call('receipts.getSchema', { params: { hash } })).toEqual(declaration);
  });

  it('answers 422 on field hash when the hash is not the content', async () => {
    const other = hashCanonical({ ...declaration, type: 'other' });
    const error = await api.operator
      .call('receipts.putSchema', { params: { hash: other }, body: declaration })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).httpStatus).toBe(422);
    expect((error as ApiError).status.details?.causes).toEqual([
      { field: 'hash', message: expect.stringContaining(hashCanonical(declaration)) },
    ]);
    const missing = await api.operator
      .call('receipts.getSchema', { params: { hash: other } })
      .catch((e: unknown) => e);
    expect((missing as ApiError).httpStatus).toBe(404);
  });

  it('answers 400 for a malformed hash and 403 for an auditor writing', async () => {
    const malformed = await api.fetch('/apis/toolgate.dev/v1/schemas/md5:abc', {
      token: api.operatorToken,
    });
    expect(malformed.status).toBe(400);
    const { client } = await api.identity('schema-writer-auditor', ['auditor']);
    const hash = hashCanonical(declaration);
    const forbidden = await client
      .call('receipts.putSchema', { params: { hash }, body: declaration })
      .catch((e: unknown) => e);
    expect((forbidden as ApiError).httpStatus).toBe(403);
  });
});
