import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

async function sql<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
  try {
    return (await db.query<T>(text)).rows;
  } finally {
    await db.end();
  }
}

async function tokenSummary(name: string) {
  const identity = await api.operator.call('identities.get', { params: { name } });
  return identity.status?.tokens;
}

describe('identity token summary', () => {
  it('counts live tokens and shows the last use after the token authenticates', async () => {
    const { client } = await api.identity('agent-counted', ['agent'], 'service');
    expect(await tokenSummary('agent-counted')).toEqual({ active: 1 });

    const before = Date.now();
    await client.call('tokens.whoami', {});
    // Token use is recorded beside the request (best effort), so wait for it to land.
    await expect
      .poll(async () => (await tokenSummary('agent-counted'))?.lastUsedTime, { timeout: 5000 })
      .toBeDefined();
    const summary = await tokenSummary('agent-counted');
    expect(summary?.active).toBe(1);
    expect(Date.parse(summary?.lastUsedTime as string)).toBeGreaterThanOrEqual(before - 1000);

    const list = await api.operator.call('identities.list', { query: { limit: 1000 } });
    const listed = list.items.find((i) => i.metadata.name === 'agent-counted');
    expect(listed?.status?.tokens).toEqual(summary);
  });

  it('counts only tokens that are neither revoked nor expired', async () => {
    await api.identity('two-tokens', ['auditor']);
    const second = await api.operator.call('tokens.issueToken', {
      params: { name: 'two-tokens' },
      body: { description: 'second' },
    });
    expect((await tokenSummary('two-tokens'))?.active).toBe(2);
    await api.operator.call('tokens.revokeToken', {
      params: { name: 'two-tokens', tokenId: second.id },
    });
    expect((await tokenSummary('two-tokens'))?.active).toBe(1);
    // An expired token: the database row says so, the count must agree without any write.
    await sql(
      `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE identity_name = 'two-tokens' AND revoked_at IS NULL`,
    );
    expect((await tokenSummary('two-tokens'))?.active).toBe(0);
  });
});

describe('editing roles and deleting an identity', () => {
  it('replaces the roles with the loaded resourceVersion, audited; a stale one is a 409', async () => {
    await api.identity('role-change', ['auditor']);
    const loaded = await api.operator.call('identities.get', { params: { name: 'role-change' } });
    const updated = await api.operator.call('identities.replace', {
      params: { name: 'role-change' },
      body: { ...loaded, spec: { ...loaded.spec, roles: ['auditor', 'operator'] } },
    });
    expect(updated.spec.roles).toEqual(['auditor', 'operator']);
    const audit = await api.operator.call('audit.list', { query: { name: 'role-change' } });
    expect(audit.items[0]?.verb).toBe('update');

    const stale = await api.fetch('/apis/toolgate.dev/v1/identities/role-change', {
      method: 'PUT',
      token: api.operatorToken,
      body: JSON.stringify({ ...loaded, spec: { ...loaded.spec, roles: ['auditor'] } }),
    });
    expect(stale.status).toBe(409);
  });

  it('refuses an unknown or empty role list naming the field, and writes nothing', async () => {
    const loaded = await api.operator.call('identities.get', { params: { name: 'role-change' } });
    for (const roles of [[], ['root']]) {
      const response = await api.fetch('/apis/toolgate.dev/v1/identities/role-change', {
        method: 'PUT',
        token: api.operatorToken,
        body: JSON.stringify({ ...loaded, spec: { ...loaded.spec, roles } }),
      });
      expect(response.status).toBe(422);
      expect(JSON.stringify(await response.json())).toContain('spec.roles');
    }
    const after = await api.operator.call('identities.get', { params: { name: 'role-change' } });
    expect(after.metadata.resourceVersion).toBe(loaded.metadata.resourceVersion);
  });

  it('deleting an identity revokes its tokens: they stop working at once', async () => {
    const { client } = await api.identity('to-delete', ['auditor']);
    await client.call('tokens.whoami', {});
    await api.operator.call('identities.delete', { params: { name: 'to-delete' } });
    await expect(client.call('tokens.whoami', {})).rejects.toMatchObject({ httpStatus: 401 });
    const tokens = await sql<{ revoked_at: Date | null }>(
      `SELECT revoked_at FROM api_tokens WHERE identity_name = 'to-delete'`,
    );
    expect(tokens.length).toBe(1);
    expect(tokens.every((row) => row.revoked_at !== null)).toBe(true);
  });
});
