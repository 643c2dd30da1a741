import {
  buildReceiptBody,
  chainReceipt,
  compileBundle,
  ingestBatchOf,
  mediateRequest,
  type Receipt,
} from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGateway } from '../receipts/receipts-testing.ts';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
let gateway: Awaited<ReturnType<typeof registerGateway>>;
/** The hash of the last receipt recorded: the next one's prev_hash. */
let chainHead: string | null = null;

const tool = (name: string) => ({
  type: 'function',
  function: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
});

/** A receipt as a gateway without policies would write it, with its schemas uploaded or not. */
async function recordRequest(
  id: string,
  tools: string[],
  prev: string | null,
  upload: boolean,
  identity: Receipt['identity'] = { binding: 'unverified' },
) {
  const result = mediateRequest(compileBundle({ policies: [] }), {
    surface: 'openai-chat',
    body: { model: 'gpt-4o-mini', messages: [], tools: tools.map(tool) },
  });
  if (upload) {
    for (const [hash, declaration] of result.schemas) {
      await gateway.call('receipts.putSchema', { params: { hash }, body: declaration });
    }
  }
  const receipt: Receipt = chainReceipt(
    buildReceiptBody({
      id,
      gateway: 'edge-p',
      receivedAt: '2026-11-21T10:00:00.000Z',
      completedAt: '2026-11-21T10:00:00.300Z',
      latencyMs: { total: 300, mediation: 0.2, upstream: 299 },
      identity,
      bundleEtag: `sha256:${'0'.repeat(64)}`,
      mediation: result,
      outcome: { status: 200 },
    }),
    prev,
  );
  const ingest = await gateway.call('receipts.ingest', {
    params: { name: 'edge-p' },
    body: ingestBatchOf([receipt]),
  });
  expect(ingest?.results[0]?.result).toBe('created');
  chainHead = receipt.hash;
  return receipt;
}

beforeAll(async () => {
  api = await startTestApi();
  gateway = await registerGateway(api, 'edge-p');
});
afterAll(() => api.close());

describe('preview against a recorded receipt', () => {
  it('replays the receipt’s original tools, fetched from the schema store', async () => {
    const first = await recordRequest('r-1', ['create_pull_request', 'search_code'], null, true);
    const effect = await api.operator.call('policies.preview', {
      body: {
        spec: { rules: [{ id: 'no-prs', action: 'hide', match: { name: 'create_pull_request' } }] },
        receiptId: first.id,
      },
    });
    expect(effect?.surface).toBe('openai-chat');
    expect(effect?.before.map((t) => [t.name, t.schema_hash])).toEqual(
      first.tools.map((t) => [t.name, t.schema_hash]),
    );
    expect(effect?.after.map((t) => t.name)).toEqual(['search_code']);

    // A receipt whose schemas never reached the store cannot be replayed: the field says why.
    const second = await recordRequest('r-2', ['unuploaded_tool'], first.hash, false);
    const response = await api.fetch('/apis/toolgate.dev/v1/mediationpolicypreviews', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({ spec: { rules: [] }, receiptId: second.id }),
    });
    expect(response.status).toBe(422);
    const status = await readStatus(response);
    expect(status.details?.causes?.[0]?.field).toBe('receiptId');
    expect(status.message).toContain('unuploaded_tool');

    const missing = await api.fetch('/apis/toolgate.dev/v1/mediationpolicypreviews', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({ spec: { rules: [] }, receiptId: 'no-such-receipt' }),
    });
    expect(missing.status).toBe(404);
  });

  it('replays a Gemini receipt as a Gemini request: nested declarations, built-ins as entries', async () => {
    const result = mediateRequest(compileBundle({ policies: [] }), {
      surface: 'gemini',
      body: {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        tools: [
          { functionDeclarations: [{ name: 'search_code' }, { name: 'create_pull_request' }] },
          { googleSearch: {} },
        ],
      },
      target: { model: 'gemini-2.5-flash', stream: false },
    });
    for (const [hash, declaration] of result.schemas) {
      await gateway.call('receipts.putSchema', { params: { hash }, body: declaration });
    }
    const receipt: Receipt = chainReceipt(
      buildReceiptBody({
        id: 'r-gemini',
        gateway: 'edge-p',
        receivedAt: '2026-11-21T10:00:00.000Z',
        completedAt: '2026-11-21T10:00:00.300Z',
        latencyMs: { total: 300, mediation: 0.2, upstream: 299 },
        identity: { binding: 'unverified' },
        bundleEtag: `sha256:${'0'.repeat(64)}`,
        mediation: result,
        outcome: { status: 200 },
      }),
      chainHead,
    );
    const ingest = await gateway.call('receipts.ingest', {
      params: { name: 'edge-p' },
      body: ingestBatchOf([receipt]),
    });
    expect(ingest?.results[0]?.result).toBe('created');
    chainHead = receipt.hash;
    const effect = await api.operator.call('policies.preview', {
      body: {
        spec: {
          rules: [
            { id: 'no-prs', action: 'hide', match: { name: 'create_pull_request' } },
            { id: 'no-search', action: 'hide', match: { name: 'googleSearch' } },
          ],
        },
        receiptId: 'r-gemini',
      },
    });
    expect(effect?.surface).toBe('gemini');
    expect(effect?.before.map((t) => t.name)).toEqual([
      'search_code',
      'create_pull_request',
      'googleSearch',
    ]);
    expect(effect?.after.map((t) => t.name)).toEqual(['search_code']);
    expect(effect?.providerRequest).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'search_code' }] }],
    });
  });

  it('replays the receipt’s caller as proven as it was: a contractor hide spares only a proven non-contractor', async () => {
    const spec = {
      rules: [
        {
          id: 'contractors-no-prs',
          action: 'hide' as const,
          match: { name: 'create_pull_request', identity: { human: 'contractor-*' } },
        },
      ],
    };
    const after = async (id: string) =>
      (await api.operator.call('policies.preview', { body: { spec, receiptId: id } }))?.after.map(
        (t) => t.name,
      );
    const tools = ['create_pull_request', 'search_code'];
    const proven = await recordRequest('r-alice-token', tools, chainHead, true, {
      human: 'alice',
      binding: 'verified',
    });
    const claimed = await recordRequest('r-alice-header', tools, chainHead, true, {
      human: 'alice',
      binding: 'claimed',
    });
    expect(await after(proven.id)).toEqual(tools);
    // A header naming alice proved nothing: the restriction applies (fail closed), as it did.
    expect(await after(claimed.id)).toEqual(['search_code']);
  });
});
