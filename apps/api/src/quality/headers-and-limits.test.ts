import { API_CONTENT_SECURITY_POLICY, securityHeaders } from '@toolgate/contract';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiEnv } from '../env.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

/**
 * The API's HTTP hardening: the shared security headers on every kind of answer (success,
 * error, framework error, HTML, stream, rate-limited), the body size limit, and the per-client
 * rate limit on issuing tokens (429 with Retry-After and a Status, nothing written).
 */

const P = '/apis/toolgate.dev/v1';
const BODY_LIMIT = 64 * 1024;
const BURST = 3;
const EXPECTED_HEADERS = securityHeaders({
  contentSecurityPolicy: API_CONTENT_SECURITY_POLICY,
  noStore: true,
});

let api: TestApi;
let db: pg.Client;
let secondOperator: string;

beforeAll(async () => {
  api = await startTestApi({
    BODY_LIMIT: String(BODY_LIMIT),
    TOKEN_RATE_BURST: String(BURST),
    TOKEN_RATE_PER_MINUTE: '1',
  });
  db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
  secondOperator = (await api.identity('second-operator', ['operator'])).token;
  await api.identity('token-holder', ['agent']);
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const rows = async () =>
  (
    await db.query<{ tokens: string; audit: string }>(
      'SELECT (SELECT count(*) FROM api_tokens)::text AS tokens, (SELECT count(*) FROM audit_log)::text AS audit',
    )
  ).rows[0];

function missingHeaders(response: Response): Record<string, string | null> {
  const wrong: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(EXPECTED_HEADERS)) {
    if (response.headers.get(name) !== value) wrong[name] = response.headers.get(name);
  }
  return wrong;
}

const issue = (token: string, body: unknown = { description: 'rate limit test' }) =>
  api.fetch(`${P}/identities/token-holder/tokens`, {
    method: 'POST',
    token,
    body: JSON.stringify(body),
  });

describe('security headers', () => {
  it('are on every kind of answer, errors and HTML included', async () => {
    const answers: Array<[string, Response]> = [
      ['liveness', await api.fetch('/healthz')],
      ['HTML reference', await api.fetch('/docs')],
      ['OpenAPI document', await api.fetch('/docs/openapi.json')],
      ['authenticated JSON', await api.fetch(`${P}/whoami`, { token: api.operatorToken })],
      ['401', await api.fetch(`${P}/whoami`)],
      ['404 route', await api.fetch(`${P}/nothing-here`, { token: api.operatorToken })],
      ['malformed URL', await api.fetch(`${P}/mediationpolicies/%E0%A4%A`)],
      [
        '413',
        await api.fetch(`${P}/mediationpolicies`, {
          method: 'POST',
          token: api.operatorToken,
          body: JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT) }),
        }),
      ],
      [
        'watch stream',
        await api.fetch(`${P}/mediationpolicies?watch=true&timeoutSeconds=1`, {
          token: api.operatorToken,
        }),
      ],
    ];
    for (const [what, response] of answers) {
      expect(missingHeaders(response), what).toEqual({});
      await response.arrayBuffer();
    }
  });
});

describe('body size limit', () => {
  it('refuses a body past BODY_LIMIT with a 413 Status and writes nothing', async () => {
    const before = await rows();
    const response = await api.fetch(`${P}/mediationpolicies`, {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify({
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name: 'too-big', annotations: { note: 'x'.repeat(BODY_LIMIT) } },
        spec: { rules: [] },
      }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      kind: 'Status',
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'request body is too large',
    });
    expect(await rows()).toEqual(before);
    expect(
      (await api.fetch(`${P}/mediationpolicies/too-big`, { token: api.operatorToken })).status,
    ).toBe(404);
  });
});

describe('rate limit on issuing tokens', () => {
  it('lets a client issue a burst, then answers 429 with Retry-After, per client', async () => {
    for (let i = 0; i < BURST; i++) expect((await issue(api.operatorToken)).status).toBe(201);
    const before = await rows();

    const limited = await issue(api.operatorToken);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(missingHeaders(limited)).toEqual({});
    const status = (await limited.json()) as { message: string };
    expect(status).toMatchObject({ kind: 'Status', code: 429, reason: 'TooManyRequests' });
    expect(status.message).toMatch(/retry in \d+ s/);
    // Invalid requests count too (guessing costs the same), and nothing was written.
    expect((await issue(api.operatorToken, { ttlSeconds: 'soon' })).status).toBe(429);
    expect(await rows()).toEqual(before);

    // Another client has its own bucket; other routes are not limited.
    expect((await issue(secondOperator)).status).toBe(201);
    expect((await api.fetch(`${P}/whoami`, { token: api.operatorToken })).status).toBe(200);
    expect(
      (await api.fetch(`${P}/identities/token-holder/tokens`, { token: api.operatorToken })).status,
    ).toBe(200);
  });

  it('is configured in the API Env and refuses a nonsense setting by name', async () => {
    const parsed = ApiEnv.safeParse({ TOKEN_RATE_BURST: '0', TOKEN_RATE_PER_MINUTE: 'often' });
    expect(parsed.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
      'TOKEN_RATE_BURST',
      'TOKEN_RATE_PER_MINUTE',
    ]);
    expect(ApiEnv.parse({})).toMatchObject({ TOKEN_RATE_BURST: 10, TOKEN_RATE_PER_MINUTE: 10 });
  });
});
