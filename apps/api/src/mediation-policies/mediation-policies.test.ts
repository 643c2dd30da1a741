import type { ApiError } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const tool = (name: string) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
});
const request = {
  model: 'gpt-4o-mini',
  messages: [],
  tools: [tool('create_pull_request'), tool('search')],
};
const body = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'MediationPolicy' as const,
  metadata: { name },
  spec: { rules, ...extra } as never,
});
const hidePr = { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } };
const augmentSearch = {
  id: 'scope',
  action: 'augment',
  match: { name: 'search' },
  description_append: 'Scoped.',
};

describe('policy history, diff and rollback', () => {
  it('keeps every generation immutably, diffs any two, and rolls back as a new generation', async () => {
    const v1 = await api.operator.call('mediationPolicies.create', {
      body: body('hist', [hidePr]),
    });
    const v2 = await api.operator.call('mediationPolicies.replace', {
      params: { name: 'hist' },
      body: { ...body('hist', [hidePr, augmentSearch]), metadata: v1.metadata },
    });
    expect(v2.metadata.generation).toBe(2);

    const history = await api.operator.call('policies.revisions', { params: { name: 'hist' } });
    expect(history.items.map((r) => r.generation)).toEqual([2, 1]);
    expect(history.items[1]?.hash).toBe((v1.status as { revisionHash?: string }).revisionHash);
    expect(history.items.every((r) => r.author === 'admin')).toBe(true);

    const diff = await api.operator.call('policies.diff', {
      params: { name: 'hist' },
      body: { from: 1, to: 2, preview: { request } },
    });
    expect(diff.changes).toEqual([{ op: 'add', path: '/rules/1', value: { ...augmentSearch } }]);
    expect(diff.effect?.from.after.map((t) => t.name)).toEqual(['search']);
    expect(diff.effect?.to.after.map((t) => t.name)).toEqual(['search']);
    expect(diff.effect?.to.after[0]?.schema_hash).not.toBe(diff.effect?.from.after[0]?.schema_hash);

    const rolled = await api.operator.call('policies.rollback', {
      params: { name: 'hist' },
      body: { toGeneration: 1 },
    });
    expect(rolled.metadata.generation).toBe(3);
    expect(rolled.spec).toEqual(v1.spec);
    const after = await api.operator.call('policies.revisions', { params: { name: 'hist' } });
    expect(after.items.map((r) => r.generation)).toEqual([3, 2, 1]);
    expect(after.items[0]?.hash).toBe(after.items[2]?.hash);

    const audit = await api.operator.call('audit.list', {
      query: { kind: 'MediationPolicy', name: 'hist' },
    });
    expect(audit.items.map((e) => e.verb)).toEqual(['rollback', 'update', 'create']);
    expect(audit.items[0]?.afterHash).toBe(audit.items[2]?.afterHash);
    expect(audit.items[0]?.beforeHash).toBe(audit.items[1]?.afterHash);
  });

  it('answers 404 for an unknown generation and 409 for a stale rollback', async () => {
    await api.operator.call('mediationPolicies.create', { body: body('hist-2', [hidePr]) });
    const missing = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies/hist-2/revisions/9', {
      token: api.operatorToken,
    });
    expect(missing.status).toBe(404);
    await expect(
      api.operator.call('policies.rollback', {
        params: { name: 'hist-2' },
        body: { toGeneration: 1, resourceVersion: '1' },
      }),
    ).rejects.toMatchObject({ httpStatus: 409 });
  });
});

describe('preview', () => {
  it('runs a draft policy against a sample request without storing it', async () => {
    const effect = await api.operator.call('policies.preview', {
      body: { spec: { rules: [hidePr] }, request },
    });
    expect(effect.surface).toBe('openai-chat');
    expect(effect.before.map((t) => t.name)).toEqual(['create_pull_request', 'search']);
    expect(effect.after.map((t) => t.name)).toEqual(['search']);
    expect(effect.mediation?.applied_rules[0]?.id).toBe('hide-pr');
    const stored = await api.operator.call('mediationPolicies.list', {});
    expect(stored.items.some((p) => p.metadata.name === 'preview')).toBe(false);
  });

  it('names the failing field of a draft and of a sample request', async () => {
    const bad = await api.fetch('/apis/toolgate.dev/v1/mediationpolicypreviews', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({ spec: { rules: [{ ...hidePr, match: {} }] }, request }),
    });
    expect(bad.status).toBe(422);
    expect((await readStatus(bad)).details?.causes?.[0]?.field).toBe('spec.rules[0].match');
    const badRequest = await api.fetch('/apis/toolgate.dev/v1/mediationpolicypreviews', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({
        spec: { rules: [] },
        request: { model: 'm', tools: [{ type: 'function', function: {} }] },
      }),
    });
    expect(badRequest.status).toBe(422);
    expect((await readStatus(badRequest)).details?.causes?.[0]?.field).toBe(
      'request.tools[0].function.name',
    );
  });

  it('is allowed to auditors, who cannot write', async () => {
    const { client } = await api.identity('auditor-1', ['auditor']);
    const effect = await client.call('policies.preview', {
      body: { spec: { rules: [hidePr] }, request },
    });
    expect(effect.after).toHaveLength(1);
    const error = await client
      .call('mediationPolicies.create', { body: body('nope', []) })
      .catch((e: ApiError) => e);
    expect((error as ApiError).httpStatus).toBe(403);
  });
});

describe('tokens', () => {
  it('issues a token shown once, lists it without the secret, and revokes it at once', async () => {
    await api.operator.call('identities.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'Identity',
        metadata: { name: 'svc-a' },
        spec: { type: 'service', roles: ['auditor'] },
      },
    });
    const issued = await api.operator.call('tokens.issueToken', {
      params: { name: 'svc-a' },
      body: { description: 'ci', ttlSeconds: 3600 },
    });
    expect(issued.token).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
    expect(issued.expiresAt).not.toBeNull();
    const listed = await api.operator.call('tokens.listTokens', { params: { name: 'svc-a' } });
    expect(JSON.stringify(listed)).not.toContain(issued.token);
    const who = await api.fetch('/apis/toolgate.dev/v1/whoami', { token: issued.token });
    expect(await who.json()).toEqual({ identity: 'svc-a', type: 'service', roles: ['auditor'] });
    await api.operator.call('tokens.revokeToken', {
      params: { name: 'svc-a', tokenId: issued.id },
    });
    expect((await api.fetch('/apis/toolgate.dev/v1/whoami', { token: issued.token })).status).toBe(
      401,
    );
  });

  it('revokes every token of a deleted identity', async () => {
    const { token } = await api.identity('short-lived', ['auditor']);
    await api.operator.call('identities.delete', { params: { name: 'short-lived' } });
    expect((await api.fetch('/apis/toolgate.dev/v1/whoami', { token })).status).toBe(401);
  });
});

describe('modes reserved to operators', () => {
  it('accepts mutate from an operator and marks it', async () => {
    const created = await api.operator.call('mediationPolicies.create', {
      body: body('mut', [hidePr], { mode: 'mutate' }),
    });
    expect(created.spec).toMatchObject({ mode: 'mutate' });
  });
});

describe('revisions in the database', () => {
  it('refuse UPDATE and DELETE', async () => {
    const { default: pg } = await import('pg');
    await api.operator.call('mediationPolicies.create', { body: body('immutable', [hidePr]) });
    const client = new pg.Client({ connectionString: api.database.url });
    await client.connect();
    try {
      await expect(client.query(`UPDATE policy_revisions SET hash = 'x'`)).rejects.toThrow(
        /immutable/,
      );
      await expect(client.query('DELETE FROM policy_revisions')).rejects.toThrow(/immutable/);
    } finally {
      await client.end();
    }
  });
});
