import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

/**
 * Structured logs never carry credentials (SPEC §3): the API runs with its real logger at debug
 * level into memory while requests carry recognisable fake secrets, valid and invalid, in headers
 * and bodies, including requests that fail (401, 404, 422, 500).
 */

const P = '/apis/toolgate.dev/v1';
const FAKE_TOKEN = 'tg_FAKEtoken0000LeakCanary0000abcdefghijklmno';
const FAKE_API_KEY = 'sk-FAKE-LeakCanary-0123456789abcdefABCDEF';
const FAKE_COOKIE = 'session=FAKEcookieLeakCanary42';

const lines: string[] = [];
const consoleOutput: string[] = [];
let api: TestApi;
let db: pg.Client;
/** Every secret a request below carried; filled as tokens are issued. */
const secrets = [FAKE_TOKEN, FAKE_API_KEY, FAKE_COOKIE];

beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleOutput.push(args.map(String).join(' '));
    });
  }
  const log = createLogger('debug', { write: (line: string) => void lines.push(line) });
  api = await startTestApi({ LOG_LEVEL: 'debug' }, { log });
  secrets.push(api.operatorToken);
  db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await db?.end();
  await api?.close();
});

const withSecrets = (token: string, extra: Record<string, string> = {}) => ({
  token,
  headers: { 'x-api-key': FAKE_API_KEY, cookie: FAKE_COOKIE, ...extra },
});

function policy(name: string, spec: Record<string, unknown> = { rules: [] }) {
  return { apiVersion: 'toolgate.dev/v1', kind: 'MediationPolicy', metadata: { name }, spec };
}

describe('request logging', () => {
  it('logs requests that succeed and fail, as JSON lines', async () => {
    const calls: Array<[string, RequestInit & { token?: string }, number]> = [
      [`${P}/whoami`, withSecrets(api.operatorToken), 200],
      [`${P}/whoami`, withSecrets(FAKE_TOKEN), 401],
      [
        `${P}/whoami`,
        { headers: { authorization: `Basic ${btoa(`admin:${FAKE_API_KEY}`)}` } },
        401,
      ],
      [`${P}/mediationpolicies/not-there`, withSecrets(api.operatorToken), 404],
      [
        `${P}/mediationpolicies`,
        {
          ...withSecrets(api.operatorToken),
          method: 'POST',
          body: JSON.stringify({
            ...policy('leaky', { rules: [], api_key: FAKE_API_KEY }),
            api_key: FAKE_API_KEY,
          }),
        },
        422,
      ],
      [
        `${P}/mediationpolicypreviews`,
        {
          ...withSecrets(api.operatorToken),
          method: 'POST',
          body: JSON.stringify({
            spec: { rules: [] },
            request: {
              model: 'm',
              api_key: FAKE_API_KEY,
              messages: [{ role: 'user', content: `my key is ${FAKE_API_KEY}` }],
            },
          }),
        },
        200,
      ],
      [
        `${P}/mediationpolicies`,
        { ...withSecrets(api.operatorToken), method: 'POST', body: `{"api_key":"${FAKE_API_KEY}"` },
        400,
      ],
    ];
    for (const [path, init, expected] of calls) {
      const response = await api.fetch(path, init);
      expect(response.status, `${init.method ?? 'GET'} ${path}`).toBe(expected);
      // An error never echoes a secret (a preview does return the request it was given).
      const text = await response.text();
      if (response.status >= 400) expect(text).not.toContain(FAKE_API_KEY.slice(8));
    }
    const issued = await api.fetch(`${P}/identities/admin/tokens`, {
      ...withSecrets(api.operatorToken),
      method: 'POST',
      body: JSON.stringify({ description: 'issued while logging' }),
    });
    expect(issued.status).toBe(201);
    secrets.push(((await issued.json()) as { token: string }).token);

    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const urls = records
      .map((r) => (r.req as { url?: string } | undefined)?.url)
      .filter((url): url is string => typeof url === 'string');
    expect(urls).toContain(`${P}/whoami`);
    expect(urls).toContain(`${P}/mediationpolicies/not-there`);
    const codes = records.map((r) => (r.res as { statusCode?: number } | undefined)?.statusCode);
    for (const code of [200, 201, 400, 401, 404, 422]) expect(codes).toContain(code);
  });

  it('logs a server error without what the request carried', async () => {
    // A constraint the API does not know about makes the insert itself fail: a 500, and PostgreSQL
    // reports the failing row (annotations included) to whoever logs the error in full.
    await db.query(
      `ALTER TABLE resources ADD CONSTRAINT leak_probe CHECK (name <> 'breaks') NOT VALID`,
    );
    try {
      const response = await api.fetch(`${P}/mediationpolicies`, {
        ...withSecrets(api.operatorToken),
        method: 'POST',
        body: JSON.stringify({
          ...policy('breaks'),
          metadata: { name: 'breaks', annotations: { api_key: FAKE_API_KEY } },
        }),
      });
      expect(response.status).toBeGreaterThanOrEqual(500);
      const body = await response.text();
      expect(body).not.toContain(FAKE_API_KEY);
      expect(body).not.toContain('leak_probe');
    } finally {
      await db.query('ALTER TABLE resources DROP CONSTRAINT leak_probe');
    }
    const errors = lines
      .map((line) => JSON.parse(line) as { level: number; err?: unknown })
      .filter((r) => r.level >= 50);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('logs URLs without the credentials in their query strings', async () => {
    // Built at run time: no secret-shaped literal in the repository.
    const opaque = () => randomBytes(12).toString('hex');
    const planted = {
      token: opaque(),
      api_key: opaque(),
      access_token: opaque(),
      key: opaque(),
      openai: `${'sk-'}proj-${opaque()}`,
      toolgate: `${'tg_'}${opaque()}${opaque()}`,
      bearer: opaque(),
    };
    const query = [
      `token=${planted.token}`,
      `api_key=${planted.api_key}`,
      `access_token=${planted.access_token}`,
      `key=${planted.key}`,
      `q=${planted.openai}`,
      `identity=${planted.toolgate}`,
      `h=${encodeURIComponent(`Bearer ${planted.bearer}`)}`,
    ].join('&');
    secrets.push(...Object.values(planted));
    const before = lines.length;
    const calls: Array<[string, string | undefined, number]> = [
      [`${P}/whoami?${query}`, api.operatorToken, 200],
      [`${P}/mediationpolicies?${query}`, api.operatorToken, 400],
      [`${P}/receipts?${query}`, undefined, 401],
      [`${P}/no-such-route?${query}`, api.operatorToken, 404],
    ];
    for (const [path, token, expected] of calls) {
      const response = await api.fetch(path, token ? { token } : {});
      expect(response.status, path).toBe(expected);
      const text = await response.text();
      for (const secret of Object.values(planted)) expect(text, path).not.toContain(secret);
    }
    const logged = lines
      .slice(before)
      .map((line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url)
      .filter((url): url is string => typeof url === 'string');
    // The URLs were logged, query and all, with the credentials redacted.
    expect(logged.length).toBeGreaterThanOrEqual(calls.length);
    for (const url of logged) {
      expect(url).toContain('token=[REDACTED]');
      expect(url).toContain('api_key=[REDACTED]');
      expect(url).toContain('access_token=[REDACTED]');
      expect(url).toContain('&key=[REDACTED]');
    }
  });

  it('contains none of the secrets, anywhere', () => {
    const output = [...lines, ...consoleOutput].join('\n');
    expect(output.length).toBeGreaterThan(0);
    const leaked = secrets.filter(
      (secret) => output.includes(secret) || output.includes(secret.slice(-24)),
    );
    expect(leaked).toEqual([]);
    expect(output).not.toContain(Buffer.from(`admin:${FAKE_API_KEY}`).toString('base64'));
  });
});
