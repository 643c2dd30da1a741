import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { operatorCall } from './quality-fixtures.ts';

/**
 * What ordinary HTTP clients send (issue #19, item 8): `Content-Type: application/json` on every
 * request, bodies or not (many clients do; Kubernetes accepts it); and who is asking is settled
 * before what was sent is judged, so a caller without a token gets 401 whatever its body. Integers
 * in paths and queries are decimal digits only: `0x1`, `1e3`, `+1` or ` 1` name nothing.
 */

const P = '/apis/toolgate.dev/v1';
const POLICY = 'clients-policy';
const BODY_LIMIT = 64 * 1024;
const JSON_TYPE = { 'content-type': 'application/json' };

let api: TestApi;
let auditorToken: string;
/** For the reliability table: requests sent here, and how many were answered 5xx. */
const tally = { tried: 0, serverErrors: 0 };

beforeAll(async () => {
  api = await startTestApi({ BODY_LIMIT: String(BODY_LIMIT) });
  auditorToken = (await api.identity('clients-auditor', ['auditor'])).token;
  await createPolicy(POLICY);
});
afterAll(async () => {
  recordFigures({ source: 'apps/api/src/quality/http-clients.test.ts', badInputs: tally });
  await api?.close();
});

function createPolicy(name: string) {
  return operatorCall(api, `${P}/mediationpolicies`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'MediationPolicy',
    metadata: { name },
    spec: { rules: [] },
  });
}

interface StatusBody {
  code: number;
  reason: string;
  message: string;
  details?: { causes?: Array<{ field: string; message: string }> };
}

async function call(path: string, init: RequestInit & { token?: string } = {}) {
  const response = await fetch(api.url + path, {
    ...init,
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.headers as Record<string, string>),
    },
  });
  tally.tried++;
  if (response.status >= 500) tally.serverErrors++;
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as StatusBody) : undefined };
}

describe('Content-Type: application/json without a body', () => {
  it('DELETE works, and without a token is 401', async () => {
    await createPolicy('clients-doomed');
    const path = `${P}/mediationpolicies/clients-doomed`;
    expect((await call(path, { method: 'DELETE', headers: JSON_TYPE })).status).toBe(401);
    const deleted = await call(path, {
      method: 'DELETE',
      token: api.operatorToken,
      headers: JSON_TYPE,
    });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await call(path, { token: api.operatorToken })).status).toBe(404);
    // Revoking a token is a DELETE too, with an explicit `Content-Length: 0`.
    const { id } = await operatorCall(api, `${P}/identities/clients-auditor/tokens`, 'POST', {});
    const revoked = await call(`${P}/identities/clients-auditor/tokens/${id}`, {
      method: 'DELETE',
      token: api.operatorToken,
      headers: { ...JSON_TYPE, 'content-length': '0' },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBeLessThan(300);
  });

  it('GET works, and without a token is 401', async () => {
    const init = { headers: JSON_TYPE };
    expect((await call(`${P}/whoami`, { ...init, token: api.operatorToken })).status).toBe(200);
    expect((await call(`${P}/mediationpolicies/${POLICY}`, init)).status).toBe(401);
    expect((await call(`${P}/whoami`, init)).status).toBe(401);
  });

  it('a route that needs a body says so, naming it', async () => {
    for (const headers of [JSON_TYPE, {}]) {
      const { status, body } = await call(`${P}/mediationpolicies`, {
        method: 'POST',
        token: api.operatorToken,
        headers,
      });
      expect(status).toBe(400);
      expect(body).toMatchObject({
        reason: 'BadRequest',
        message: 'a JSON request body is required',
      });
      expect(body?.details?.causes?.[0]?.field).toBe('(root)');
    }
  });
});

describe('who is asking is settled before the body is judged', () => {
  const policyPath = `${P}/mediationpolicies`;
  const BAD_BODIES: Array<[string, RequestInit]> = [
    ['malformed JSON', { body: '{"apiVersion":', headers: JSON_TYPE }],
    ['invalid UTF-8', { body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: JSON_TYPE }],
    ['a lone surrogate', { body: '{"a":"\\ud800"}', headers: JSON_TYPE }],
    ['an unsupported media type', { body: 'x', headers: { 'content-type': 'text/plain' } }],
    ['a body over the limit', { body: `"${'x'.repeat(BODY_LIMIT)}"`, headers: JSON_TYPE }],
  ];

  it.each(BAD_BODIES)('%s: 401 without a token, 403 without the role', async (_kind, init) => {
    for (const method of ['POST', 'DELETE']) {
      const path = method === 'POST' ? policyPath : `${policyPath}/${POLICY}`;
      const anonymous = await call(path, { ...init, method });
      expect(anonymous.status, `${method}: ${JSON.stringify(anonymous.body)}`).toBe(401);
      const wrongToken = await call(path, { ...init, method, token: 'tg_not-a-real-token' });
      expect(wrongToken.status).toBe(401);
      const auditor = await call(path, { ...init, method, token: auditorToken });
      expect(auditor.status, `${method}: ${JSON.stringify(auditor.body)}`).toBe(403);
    }
    // With the right token, the body's own fault.
    const operator = await call(policyPath, { ...init, method: 'POST', token: api.operatorToken });
    expect([400, 413]).toContain(operator.status);
  });

  it('an unknown route stays a 404 without a token', async () => {
    expect((await call(`${P}/nothing-here`, { method: 'POST', headers: JSON_TYPE })).status).toBe(
      404,
    );
  });
});

describe('integers in paths and queries are decimal digits', () => {
  const fieldsOf = (body: StatusBody | undefined) => [
    ...new Set(body?.details?.causes?.map((c) => c.field)),
  ];

  // Leading zeros are refused too: each number has one spelling, so one URL names one thing.
  const NOT_DECIMAL = [
    '0x1',
    '1e3',
    '+1',
    '%201',
    '1%20',
    '01',
    '1.0',
    '-1',
    '1_000',
    'Infinity',
    '%EF%BC%91', // a fullwidth digit one
    '99999999999999999999',
    '9'.repeat(400),
  ];

  it('a revision: 1 works; 0x1, 1e3, +1, " 1", 01, 1.0 and huge numbers are 400 naming it', async () => {
    const revisions = `${P}/mediationpolicies/${POLICY}/revisions`;
    const ok = await call(`${revisions}/1`, { token: api.operatorToken });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    for (const generation of [...NOT_DECIMAL, '0', '2147483648']) {
      const { status, body } = await call(`${revisions}/${generation}`, {
        token: api.operatorToken,
      });
      expect(status, `${generation}: ${JSON.stringify(body)}`).toBe(400);
      expect(fieldsOf(body), generation).toEqual(['generation']);
      expect(body?.message, generation).toContain('param generation: ');
    }
  });

  it.each([
    ['limit', `${P}/mediationpolicies`],
    ['limit', `${P}/auditlog`],
    ['limit', `${P}/receipts`],
    ['timeoutSeconds', `${P}/mediationpolicies?watch=true`],
    ['wait', `${P}/gateways/clients-gateway/bundle`],
  ])('query %s on %s', async (key, path) => {
    const join = path.includes('?') ? '&' : '?';
    for (const value of NOT_DECIMAL) {
      const { status, body } = await call(`${path}${join}${key}=${value}`, {
        token: api.operatorToken,
      });
      expect(status, `${key}=${value}: ${JSON.stringify(body)}`).toBe(400);
      expect(fieldsOf(body), value).toEqual([key]);
    }
    if (key === 'limit') {
      const fine = await call(`${path}${join}limit=5`, { token: api.operatorToken });
      expect(fine.status).toBe(200);
    }
  });
});
