import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const AUDIT = '/apis/toolgate.dev/v1/auditlog';

describe('the audit log time range', () => {
  it('returns only the entries inside since/until', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    await api.identity('audit-range', ['auditor']);
    const after = new Date(Date.now() + 1000).toISOString();
    const inside = await api.operator.call('audit.list', {
      query: { since: before, until: after, name: 'audit-range' },
    });
    expect(inside.items.map((e) => e.verb).sort()).toEqual(['create', 'issue-token']);
    const earlier = await api.operator.call('audit.list', {
      query: { until: before, name: 'audit-range' },
    });
    expect(earlier.items).toEqual([]);
    const later = await api.operator.call('audit.list', { query: { since: after } });
    expect(later.items).toEqual([]);
  });

  it('refuses a range that ends before it starts, and a malformed time, naming the field', async () => {
    const reversed = await api.fetch(
      `${AUDIT}?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z`,
      { token: api.operatorToken },
    );
    expect(reversed.status).toBe(400);
    expect(JSON.stringify(await reversed.json())).toContain('until');
    const malformed = await api.fetch(`${AUDIT}?since=yesterday`, { token: api.operatorToken });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toContain('since');
  });
});
