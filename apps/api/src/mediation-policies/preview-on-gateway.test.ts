import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  await api.identity('gw-prod', ['gateway']);
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: 'edge-prod', labels: { env: 'prod' } },
      spec: { identity: 'gw-prod' },
    },
  });
  await api.operator.call('mediationPolicies.create', {
    body: policy('prod-hide-deletes', 'prod', 10, [hide('hide-deletes', 'delete_branch')]),
  });
  await api.operator.call('mediationPolicies.create', {
    body: policy('dev-hide-search', 'dev', 10, [hide('hide-search', 'search')]),
  });
  await api.operator.call('mediationPolicies.create', {
    body: policy('repo-guard', 'prod', 5, [hide('hide-pr', 'create_pull_request')]),
  });
});
afterAll(() => api.close());

const PREVIEW = '/apis/toolgate.dev/v1/mediationpolicypreviews';
const hide = (id: string, name: string) => ({ id, action: 'hide', match: { name } });
const policy = (name: string, env: string, priority: number, rules: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'MediationPolicy' as const,
  metadata: { name },
  spec: { selector: { matchLabels: { env } }, priority, rules } as never,
});
const tool = (name: string) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
});
const request = {
  model: 'gpt-4o-mini',
  messages: [],
  tools: ['delete_branch', 'create_pull_request', 'merge', 'search'].map(tool),
};

describe('preview on a gateway: the draft with every policy that gateway runs', () => {
  it('runs the gateway’s set, the draft in place of its stored version', async () => {
    // The draft of repo-guard now hides merge instead of create_pull_request.
    const effect = await api.operator.call('policies.preview', {
      body: {
        spec: { selector: { matchLabels: { env: 'prod' } }, rules: [hide('hide-merge', 'merge')] },
        request,
        gateway: 'edge-prod',
        policyName: 'repo-guard',
      },
    });
    expect(effect.after.map((t) => t.name)).toEqual(['create_pull_request', 'search']);
    expect(effect.policies).toEqual([
      { name: 'prod-hide-deletes', generation: 1, draft: false },
      { name: 'repo-guard', generation: 0, draft: true },
    ]);
    expect(effect.draftSelected).toBe(true);
    expect(effect.gateway).toBe('edge-prod');
    // Alone, the draft hides only merge.
    const alone = await api.operator.call('policies.preview', {
      body: { spec: { rules: [hide('hide-merge', 'merge')] }, request },
    });
    expect(alone.after.map((t) => t.name)).toEqual([
      'delete_branch',
      'create_pull_request',
      'search',
    ]);
    expect(alone.policies).toBeUndefined();
  });

  it('says when the draft does not select the gateway (and runs only the stored set)', async () => {
    const effect = await api.operator.call('policies.preview', {
      body: {
        spec: { selector: { matchLabels: { env: 'dev' } }, rules: [hide('hide-merge', 'merge')] },
        request,
        gateway: 'edge-prod',
      },
    });
    expect(effect.draftSelected).toBe(false);
    expect(effect.policies?.map((p) => p.name)).toEqual(['prod-hide-deletes', 'repo-guard']);
    expect(effect.after.map((t) => t.name)).toEqual(['merge', 'search']);
  });

  it('refuses an unknown gateway (404) and a malformed name (422), naming it', async () => {
    const missing = await api.fetch(PREVIEW, {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({ spec: { rules: [] }, request, gateway: 'nope' }),
    });
    expect(missing.status).toBe(404);
    expect((await readStatus(missing)).message).toContain('nope');
    const bad = await api.fetch(PREVIEW, {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({ spec: { rules: [] }, request, gateway: 'Not A Name!' }),
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await readStatus(bad))).toContain('gateway');
  });
});
