import { ApiError } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const policy = (name: string, rules: unknown[] = [], labels: Record<string, string> = {}) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'MediationPolicy' as const,
  metadata: { name, labels },
  spec: { rules } as never,
});
const hide = (id: string, name: string) => ({ id, action: 'hide', match: { name } });

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('Kubernetes object semantics', () => {
  it('creates with uid, generation 1, resourceVersion, defaults applied', async () => {
    const created = await api.operator.call('mediationPolicies.create', {
      body: policy('p-create', [hide('a', 'x')]),
    });
    expect(created.metadata.generation).toBe(1);
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(created.spec).toMatchObject({ mode: 'patch', priority: 0, selector: {} });
    expect(created.status).toMatchObject({
      observedGeneration: 1,
      conditions: [{ type: 'Accepted', status: 'True' }],
    });
    const read = await api.operator.call('mediationPolicies.get', { params: { name: 'p-create' } });
    expect(read).toEqual(created);
  });

  it('answers 409 AlreadyExists for a duplicate name', async () => {
    await api.operator.call('mediationPolicies.create', { body: policy('p-dup') });
    const error = await failure(
      api.operator.call('mediationPolicies.create', { body: policy('p-dup') }),
    );
    expect(error.httpStatus).toBe(409);
    expect(error.status.reason).toBe('AlreadyExists');
  });

  it('bumps generation on spec changes only, and refuses a stale resourceVersion', async () => {
    const v1 = await api.operator.call('mediationPolicies.create', { body: policy('p-update') });
    const relabeled = await api.operator.call('mediationPolicies.replace', {
      params: { name: 'p-update' },
      body: {
        ...policy('p-update', [], { team: 'a' }),
        metadata: { ...v1.metadata, labels: { team: 'a' } },
      },
    });
    expect(relabeled.metadata.generation).toBe(1);
    expect(relabeled.metadata.resourceVersion).not.toBe(v1.metadata.resourceVersion);
    const v2 = await api.operator.call('mediationPolicies.replace', {
      params: { name: 'p-update' },
      body: { ...policy('p-update', [hide('h', 'x')]), metadata: relabeled.metadata },
    });
    expect(v2.metadata.generation).toBe(2);
    const stale = await failure(
      api.operator.call('mediationPolicies.replace', {
        params: { name: 'p-update' },
        body: { ...policy('p-update', [hide('h', 'y')]), metadata: v1.metadata },
      }),
    );
    expect(stale.httpStatus).toBe(409);
    expect(stale.status.reason).toBe('Conflict');
    const unchanged = await api.operator.call('mediationPolicies.get', {
      params: { name: 'p-update' },
    });
    expect(unchanged.metadata.resourceVersion).toBe(v2.metadata.resourceVersion);
  });

  it('validates with field paths and writes nothing on error', async () => {
    const response = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify(
        policy('p-bad', [
          hide('a', 'x'),
          hide('b', 'y'),
          { id: 'c', action: 'hide', match: { name: '' } },
        ]),
      ),
    });
    expect(response.status).toBe(422);
    const status = await readStatus(response);
    expect(status).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(status.details?.causes?.map((c) => c.field)).toContain('spec.rules[2].match.name');
    const missing = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies/p-bad', {
      token: api.operatorToken,
    });
    expect(missing.status).toBe(404);
  });

  it('supports dryRun=All without storing anything', async () => {
    const response = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies?dryRun=All', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify(policy('p-dry')),
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { metadata: { name: string } }).metadata.name).toBe('p-dry');
    const missing = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies/p-dry', {
      token: api.operatorToken,
    });
    expect(missing.status).toBe(404);
  });

  it('lists with label selectors and keyset paging', async () => {
    for (const [name, env] of [
      ['l-1', 'prod'],
      ['l-2', 'dev'],
      ['l-3', 'prod'],
      ['l-4', 'prod'],
    ] as const) {
      await api.operator.call('mediationPolicies.create', {
        body: policy(name, [], { env, suite: 'list' }),
      });
    }
    const selected = await api.operator.call('mediationPolicies.list', {
      query: { labelSelector: 'suite=list,env in (prod)' },
    });
    expect(selected.items.map((p) => p.metadata.name)).toEqual(['l-1', 'l-3', 'l-4']);
    const page1 = await api.operator.call('mediationPolicies.list', {
      query: { labelSelector: 'suite=list', limit: 3 },
    });
    expect(page1.items).toHaveLength(3);
    const page2 = await api.operator.call('mediationPolicies.list', {
      query: { labelSelector: 'suite=list', limit: 3, continue: page1.metadata.continue as string },
    });
    expect(page2.items.map((p) => p.metadata.name)).toEqual(['l-4']);
    const bad = await api.fetch(
      '/apis/toolgate.dev/v1/mediationpolicies?labelSelector=a%20in%20(',
      { token: api.operatorToken },
    );
    expect(bad.status).toBe(400);
  });

  it('deletes, then answers 404', async () => {
    await api.operator.call('mediationPolicies.create', { body: policy('p-del') });
    await api.operator.call('mediationPolicies.delete', { params: { name: 'p-del' } });
    const error = await failure(
      api.operator.call('mediationPolicies.get', { params: { name: 'p-del' } }),
    );
    expect(error.httpStatus).toBe(404);
  });
});
