import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { BootstrapOperator } from './bootstrap-operator.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('first start', () => {
  it('created one operator whose token works, and never creates another', async () => {
    const who = await api.operator.call('tokens.whoami', {});
    expect(who).toEqual({ identity: 'admin', type: 'human', roles: ['operator'] });
    expect(await api.app.get(BootstrapOperator).ensureOperator()).toBeUndefined();
    const tokens = await api.operator.call('tokens.listTokens', { params: { name: 'admin' } });
    expect(tokens.items).toHaveLength(1);
    const audit = await api.operator.call('audit.list', { query: { name: 'admin' } });
    expect(audit.items.map((e) => [e.actor, e.verb])).toEqual([
      ['system:bootstrap', 'issue-token'],
      ['system:bootstrap', 'create'],
    ]);
  });
});
