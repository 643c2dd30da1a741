import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const policy = (name: string, when: string) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicy',
  metadata: { name },
  spec: { rules: [{ id: 'r', action: 'hide', match: { name: 'delete_repo' }, when }] },
});

describe('rule when: conditions at apply', () => {
  it.each([
    ['', 'x == 1', /1:1: undeclared reference 'x'/],
    ['?dryRun=All', "tool.name == 'a' && identity.nme == 'b'", /1:29: undefined field 'nme'/],
    ['', "args.path == '/'", /'args' is only defined for call-time actions/],
    ['?dryRun=All', "args.path == '/'", /'args' is only defined for call-time actions/],
    ['?dryRun=All', "tool.name == 'a' &&", /^\d+:\d+: /],
  ])(
    'refuses a bad when (%s %s) with a 422 naming spec.rules[0].when, storing nothing',
    async (query, when, message) => {
      const response = await api.fetch(`/apis/toolgate.dev/v1/mediationpolicies${query}`, {
        method: 'POST',
        token: api.operatorToken,
        body: JSON.stringify(policy('bad-when', when)),
      });
      expect(response.status).toBe(422);
      const cause = (await readStatus(response)).details?.causes?.[0];
      expect(cause?.field).toBe('spec.rules[0].when');
      expect(cause?.message).toMatch(message);
      const missing = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies/bad-when', {
        token: api.operatorToken,
      });
      expect(missing.status).toBe(404);
    },
  );

  it('stores a policy whose when compiles', async () => {
    const response = await api.fetch('/apis/toolgate.dev/v1/mediationpolicies', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify(policy('good-when', "identity.human.startsWith('contractor-')")),
    });
    expect(response.status).toBe(201);
  });
});
