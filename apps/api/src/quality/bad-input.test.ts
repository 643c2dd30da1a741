import { buildPath, ROUTES, type RouteDef, type RouteName } from '@toolgate/contract';
import { hashCanonical, type Role } from '@toolgate/core';
import {
  deepArray,
  deepObject,
  invalidUtf8,
  loneSurrogateJson,
  malformedJson,
  NON_JSON_CONTENT_TYPES,
  pathsOf,
  readableFailure,
  setAt,
  valueAt,
  wrongValue,
} from '@toolgate/core/testing';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { type Answer, first, operatorCall } from './quality-fixtures.ts';

/**
 * Whatever a client sends, the API answers with a `Status` it can act on (never a 500, a crash or
 * a hang) and writes nothing when it refuses. Random bodies, queries and path parameters go to
 * every route that takes any, as the operator and, where allowed, as a gateway.
 */

/** Small, so bodies past the limit are cheap to send; the mechanism is the same at 8 MiB. */
const BODY_LIMIT = 256 * 1024;
const RUNS = 25;
const REQUEST_TIMEOUT_MS = 15_000;
/** What a refused request may answer (415 is mapped to 400). */
const REFUSALS = [400, 404, 409, 413, 422];
const SECURITY_HEADERS = [
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'content-security-policy',
];
const TABLES = [
  'resources',
  'resource_events',
  'audit_log',
  'policy_revisions',
  'api_tokens',
  'receipts',
  'tool_schemas',
];

const P = '/apis/toolgate.dev/v1';
const POLICY = 'fuzz-policy';
const VICTIM = 'fuzz-victim';
const GATEWAY = 'fuzz-gateway';
const GATEWAY_IDENTITY = 'fuzz-gateway-id';
const SCHEMA = {
  type: 'function',
  function: { name: 'fuzz_tool', parameters: { type: 'object' } },
};
const SCHEMA_HASH = hashCanonical(SCHEMA);
const POLICY_SPEC = {
  priority: 5,
  mode: 'patch',
  rules: [
    { id: 'hide', action: 'hide', match: { name: 'delete_*' } },
    {
      id: 'tighten',
      action: 'augment',
      match: { name: 'search' },
      parameters: { type: 'object', properties: { q: { type: 'string', maxLength: 100 } } },
    },
    {
      id: 'swap',
      action: 'replace',
      match: { name: 'fetch' },
      tool: { name: 'fetch', description: 'Fetch a URL', parameters: { type: 'object' } },
    },
  ],
};
const SAMPLE_REQUEST = {
  model: 'gpt-test',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }],
};

let api: TestApi;
let db: pg.Client;
let gatewayToken: string;
let victimTokenId: string;
const stored: Record<string, Answer> = {};

const operator = (path: string, method = 'GET', body?: unknown) =>
  operatorCall(api, path, method, body);

beforeAll(async () => {
  // Token issuing is rate limited (see security-headers-and-limits.test.ts); here every
  // generated request must reach validation.
  api = await startTestApi({ BODY_LIMIT: String(BODY_LIMIT), TOKEN_RATE_BURST: '100000' });
  db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
  gatewayToken = (await api.identity(GATEWAY_IDENTITY, ['gateway'])).token;
  await api.identity(VICTIM, ['auditor']);
  victimTokenId = first(await operator(`${P}/identities/${VICTIM}/tokens`)).id;
  await operator(`${P}/gateways`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'Gateway',
    metadata: { name: GATEWAY, labels: { fleet: 'fuzz' } },
    spec: { identity: GATEWAY_IDENTITY },
  });
  const created = await operator(`${P}/mediationpolicies`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'MediationPolicy',
    metadata: { name: POLICY, labels: { team: 'fuzz' } },
    spec: POLICY_SPEC,
  });
  await operator(`${P}/mediationpolicies/${POLICY}`, 'PUT', {
    ...created,
    spec: { ...POLICY_SPEC, priority: 6 },
  });
  await operator(`${P}/schemas/${SCHEMA_HASH}`, 'PUT', SCHEMA);
  const contract = first(await operator(`${P}/capabilitycontracts`));
  const profile = first(await operator(`${P}/providerprofiles`));
  stored.mediationPolicies = await operator(`${P}/mediationpolicies/${POLICY}`);
  stored.identities = await operator(`${P}/identities/${VICTIM}`);
  stored.capabilityContracts = contract;
  stored.providerProfiles = profile;
  stored.gateways = await operator(`${P}/gateways/${GATEWAY}`);
});
afterAll(async () => {
  const tallies = [...outcomes.values()].flatMap((tally) => Object.entries(tally));
  recordFigures({
    source: 'apps/api/src/quality/bad-input.test.ts',
    badInputs: {
      tried: tallies.reduce((sum, [, count]) => sum + count, 0),
      serverErrors: tallies
        .filter(([code]) => Number(code) >= 500)
        .reduce((sum, [, count]) => sum + count, 0),
    },
  });
  await db?.end();
  await api?.close();
});

/** Row counts of every table, and the newest resourceVersion: any write changes one of them. */
async function snapshot(): Promise<Record<string, string>> {
  const counts = TABLES.map((table) => `(SELECT count(*) FROM ${table})::text AS ${table}`);
  const { rows } = await db.query(
    `SELECT ${counts.join(', ')}, (SELECT coalesce(max(resource_version), 0) FROM resources)::text AS rv`,
  );
  return rows[0];
}

// --- what to send ------------------------------------------------------------------------------

interface Attempt {
  params: Record<string, string>;
  query: Array<[string, string]>;
  body?: {
    bytes: string | Uint8Array;
    contentType?: string;
    /** Text no store can hold faithfully: never accepted, and a 400 says why. */
    refusedAs?: RegExp;
  };
  /** No body, but `Content-Type: application/json` all the same (as many clients send). */
  jsonTypeWithoutBody?: boolean;
}

const JSON_TYPE = 'application/json';

const ROUTE_ENTRIES = Object.entries(ROUTES) as Array<[RouteName, RouteDef]>;
const pathParams = (def: RouteDef) =>
  [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
const queryKeys = (def: RouteDef) =>
  Object.keys((def.query as z.ZodObject | undefined)?.shape ?? {});
const FUZZED = ROUTE_ENTRIES.filter(
  ([, def]) => def.body || def.query || pathParams(def).length > 0,
);

function nameOf(object: Answer | undefined): string {
  return object?.metadata.name ?? 'missing';
}

function group(name: RouteName): string {
  return name.slice(0, name.indexOf('.'));
}

/** Existing objects for each path parameter, so requests get past the 404. */
function fixtureParam(name: RouteName, param: string): string {
  switch (param) {
    case 'name': {
      const byGroup: Record<string, string> = {
        mediationPolicies: POLICY,
        policies: POLICY,
        identities: VICTIM,
        tokens: VICTIM,
        capabilityContracts: nameOf(stored.capabilityContracts),
        providerProfiles: nameOf(stored.providerProfiles),
      };
      return byGroup[group(name)] ?? GATEWAY;
    }
    case 'generation':
      return '1';
    case 'tokenId':
      return victimTokenId;
    case 'hash':
      return SCHEMA_HASH;
    case 'field':
      // receipts.values: one of the filters it suggests values for.
      return 'tool';
    default:
      return 'x';
  }
}

/** A plausible, mostly valid body to start from: mutations of it reach deep validation. */
function template(name: RouteName): Record<string, unknown> {
  const [g, op] = name.split('.') as [string, string];
  const object = stored[g];
  if (object && (op === 'create' || op === 'replace')) {
    const { apiVersion, kind, metadata, spec } = object;
    return op === 'create'
      ? {
          apiVersion,
          kind,
          metadata: { name: `fuzz-${g.toLowerCase()}`, labels: { a: 'b' } },
          spec,
        }
      : { apiVersion, kind, metadata: { ...metadata }, spec };
  }
  const templates: Partial<Record<string, Record<string, unknown>>> = {
    replaceStatus: {
      metadata: { resourceVersion: '1' },
      status: { observedGeneration: 1, conditions: [], spoolDepth: 0, version: '1.0.0' },
    },
    'policies.diff': {
      from: 1,
      to: 2,
      preview: { surface: 'openai-chat', request: SAMPLE_REQUEST },
    },
    'policies.rollback': { toGeneration: 1, resourceVersion: '1' },
    'policies.preview': { spec: POLICY_SPEC, surface: 'openai-chat', request: SAMPLE_REQUEST },
    'tokens.issueToken': { description: 'fuzz', ttlSeconds: 3600 },
    'receipts.ingest': { receipts: [{ id: 'r-1', gateway: GATEWAY, seq: 1, hash: 'sha256:00' }] },
    'receipts.putSchema': SCHEMA,
  };
  return structuredClone(templates[name] ?? templates[op] ?? {});
}

function jsonBody(value: unknown, contentType = 'application/json') {
  return { bytes: JSON.stringify(value) ?? 'null', contentType };
}

/** Bodies: random JSON, wrong types at known fields, huge, deep, broken UTF-8 or JSON, odd types. */
function bodyArbitrary(name: RouteName): fc.Arbitrary<Attempt['body']> {
  const base = template(name);
  const paths = pathsOf(base);
  const objectPaths = paths.filter((p) => {
    const value = valueAt(base, p);
    return value !== null && typeof value === 'object';
  });
  const text = JSON.stringify(base);
  return fc.oneof(
    { weight: 2, arbitrary: fc.jsonValue().map((v) => jsonBody(v)) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })).map((v) => jsonBody(v)),
    },
    {
      weight: 5,
      arbitrary: fc
        .constantFrom(...paths)
        .chain((path) =>
          wrongValue(valueAt(base, path)).map((value) => jsonBody(setAt(base, path, value))),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          key: fc.string({ minLength: 1, maxLength: 10 }),
          value: fc.jsonValue({ maxDepth: 1 }),
        })
        .map(({ key, value }) => jsonBody({ ...base, [key]: value })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(BODY_LIMIT - 2048, BODY_LIMIT + 1, BODY_LIMIT * 2)
        .chain((size) =>
          fc.constantFrom(
            jsonBody(new Array(Math.floor(size / 2)).fill(0)),
            jsonBody({ ...base, description: 'x'.repeat(size) }),
            jsonBody({ items: new Array(Math.floor(size / 4)).fill('ab') }),
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          path: fc.constantFrom(...objectPaths),
          depth: fc.constantFrom(200, 300, 5000, 60_000),
          array: fc.boolean(),
        })
        .map(({ path, depth, array }) => {
          const marker = '"__deep__"';
          const withMarker = JSON.stringify(setAt(base, path, '__deep__'));
          return {
            bytes: withMarker.replace(marker, array ? deepArray(depth) : deepObject(depth)),
            contentType: JSON_TYPE,
          };
        }),
    },
    {
      weight: 1,
      arbitrary: invalidUtf8(text).map((bytes) => ({
        bytes,
        contentType: JSON_TYPE,
        refusedAs: /^request body is not valid UTF-8 at byte \d+$/,
      })),
    },
    {
      weight: 2,
      arbitrary: loneSurrogateJson(base).map((bytes) => ({
        bytes,
        contentType: JSON_TYPE,
        refusedAs: /lone UTF-16 surrogate/,
      })),
    },
    {
      weight: 2,
      arbitrary: malformedJson(text).map((bytes) => ({ bytes, contentType: JSON_TYPE })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          ...NON_JSON_CONTENT_TYPES,
          'application/merge-patch+json',
          'application/json-patch+json',
          'image/png',
        )
        .map((contentType) => ({ bytes: text, contentType })),
    },
    { weight: 1, arbitrary: fc.constant({ bytes: text, contentType: '' }) },
  );
}

const oddString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('', ' ', '-1', '0', '1e999', 'NaN', 'null', '%', '\u0000', 'ä', 'a'.repeat(300)),
  fc.constantFrom('x'.repeat(2000), 'A_B', 'sha256:xyz', '..', '.', '/', 'a/b', '?', '#'),
  // Integers spelled other than in decimal digits (JavaScript's Number() reads them all).
  fc.constantFrom('0x1', '1e3', '+1', ' 1', '01', '1.0', '99999999999999999999', '0b1', '1_0'),
);

function paramsArbitrary(
  name: RouteName,
  def: RouteDef,
  asGateway: boolean,
): fc.Arbitrary<Record<string, string>> {
  const entries = pathParams(def).map((param) => {
    const fixture = fixtureParam(name, param);
    // A gateway may only name its own Gateway (anything else is a 403, see access-matrix).
    if (asGateway && param === 'name') return [param, fc.constant(GATEWAY)] as const;
    // Deleting a fixture would change what later runs meet; deletes get random names, and a
    // well-formed one that names nothing, so some attempts always get past validation.
    const keep = def.method === 'DELETE' && param === 'name' && name !== 'tokens.revokeToken';
    const arbitrary = keep
      ? fc.oneof(
          { weight: 3, arbitrary: oddString },
          { weight: 1, arbitrary: fc.constant('fuzz-names-nothing') },
        )
      : fc.oneof(
          { weight: 3, arbitrary: fc.constant(fixture) },
          { weight: 1, arbitrary: oddString },
        );
    return [param, arbitrary] as const;
  });
  return fc.record(Object.fromEntries(entries));
}

/** Mostly no query or a valid one, so bodies get validated too; otherwise junk of every kind. */
function queryArbitrary(def: RouteDef): fc.Arbitrary<Array<[string, string]>> {
  const keys = queryKeys(def);
  const key =
    keys.length > 0
      ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 10 }))
      : fc.string({ maxLength: 10 });
  const value = fc.oneof(
    oddString,
    fc.integer().map(String),
    fc.constantFrom('All', 'all', 'true', '1', '2000'),
  );
  const valid: Array<[string, string]> = keys.includes('dryRun') ? [['dryRun', 'All']] : [];
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 1, arbitrary: fc.constant(valid) },
    { weight: 2, arbitrary: fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 4 }) },
  );
}

function attemptArbitrary(name: RouteName, asGateway = false): fc.Arbitrary<Attempt> {
  const def: RouteDef = ROUTES[name];
  const parts = { params: paramsArbitrary(name, def, asGateway), query: queryArbitrary(def) };
  return (
    def.body
      ? fc.record({ ...parts, body: bodyArbitrary(name) })
      : fc.record({ ...parts, jsonTypeWithoutBody: fc.boolean() })
  ) as fc.Arbitrary<Attempt>;
}

// --- how to judge the answer -------------------------------------------------------------------

async function send(name: RouteName, attempt: Attempt, token: string, abort: AbortSignal) {
  const def: RouteDef = ROUTES[name];
  const search = new URLSearchParams(attempt.query).toString();
  const path = buildPath(def.path, attempt.params) + (search ? `?${search}` : '');
  // One connection per request: aborting a watch stream then really closes it.
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, connection: 'close' };
  if (attempt.body?.contentType) headers['content-type'] = attempt.body.contentType;
  if (attempt.jsonTypeWithoutBody) headers['content-type'] = JSON_TYPE;
  return fetch(api.url + path, {
    method: def.method,
    headers,
    ...(attempt.body ? { body: attempt.body.bytes } : {}),
    signal: AbortSignal.any([abort, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
  });
}

const outcomes = new Map<RouteName, Record<string, number>>();

const isWatch = (attempt: Attempt) =>
  attempt.query.some(([key, value]) => key === 'watch' && (value === 'true' || value === '1'));

/** One attempt: an accepted request is fine; a refused one must be a clean, write-free Status. */
async function judge(name: RouteName, attempt: Attempt, token: string): Promise<void> {
  const before = await snapshot();
  const abort = new AbortController();
  const response = await send(name, attempt, token, abort.signal);
  const tally = outcomes.get(name) ?? {};
  tally[response.status] = (tally[response.status] ?? 0) + 1;
  outcomes.set(name, tally);
  for (const header of SECURITY_HEADERS) expect(response.headers.get(header), header).toBeTruthy();
  const refusedAs = attempt.body?.refusedAs;
  if (refusedAs)
    expect(response.status, `accepted: ${describeAttempt(attempt)}`).toBeGreaterThanOrEqual(400);
  if (response.status < 300) {
    // Valid by chance (or a watch stream, which would not end): nothing to check.
    abort.abort();
    return;
  }
  const text = await response.text();
  let status: {
    kind?: string;
    code?: number;
    message?: string;
    details?: { causes?: Array<{ field?: unknown }> };
  };
  try {
    status = JSON.parse(text);
  } catch {
    throw new Error(`${response.status} is not JSON: ${text.slice(0, 200)}`);
  }
  expect(status, text.slice(0, 500)).toMatchObject({ kind: 'Status', code: response.status });
  // A watch from a resourceVersion older than the kept history is 410 Gone, as in Kubernetes.
  const refusals = isWatch(attempt) ? [...REFUSALS, 410] : REFUSALS;
  expect(refusals, text.slice(0, 500)).toContain(response.status);
  // A path parameter can fail first (404, 400); when the body is what failed, it says how.
  if (refusedAs && response.status === 400 && !/param/.test(status.message ?? '')) {
    expect(status.message, text.slice(0, 500)).toMatch(refusedAs);
  }
  if (response.status === 422) {
    const fields = (status.details?.causes ?? []).map((c) => c.field);
    expect(fields.length, text.slice(0, 500)).toBeGreaterThan(0);
    for (const field of fields) expect(typeof field).toBe('string');
  }
  expect(await snapshot(), `a refused ${name} wrote something: ${text.slice(0, 300)}`).toEqual(
    before,
  );
}

function describeAttempt(attempt: Attempt): string {
  const body = attempt.body?.bytes;
  const shown =
    typeof body === 'string' ? body.slice(0, 300) : body ? `<${body.length} bytes>` : '';
  return JSON.stringify({ ...attempt, body: { ...attempt.body, bytes: shown } });
}

const failureReporter = readableFailure(describeAttempt);

describe('random input never breaks a route', () => {
  const mayCall = (def: RouteDef, role: Role) =>
    !('anonymous' in def.access) && def.access.roles.includes(role);
  const operatorRoutes = FUZZED.filter(([, def]) => mayCall(def, 'operator')).map(([name]) => name);
  // Routes a gateway may call on its own Gateway (or on no gateway at all).
  const gatewayRoutes = FUZZED.filter(
    ([, def]) =>
      mayCall(def, 'gateway') &&
      !('anonymous' in def.access) &&
      (!def.access.ownGateway || def.path.includes('/gateways/{name}')),
  ).map(([name]) => name);

  it.each(operatorRoutes)('%s (operator)', async (name) => {
    await fc.assert(
      fc.asyncProperty(attemptArbitrary(name), (attempt) =>
        judge(name, attempt, api.operatorToken),
      ),
      { numRuns: RUNS, endOnFailure: true, reporter: failureReporter },
    );
  });

  it.each(gatewayRoutes)('%s (gateway)', async (name) => {
    await fc.assert(
      fc.asyncProperty(attemptArbitrary(name, true), (attempt) =>
        judge(name, attempt, gatewayToken),
      ),
      { numRuns: RUNS, endOnFailure: true, reporter: failureReporter },
    );
  });

  it('still answers afterwards', async () => {
    const health = await api.fetch('/healthz');
    expect(health.status).toBe(200);
    expect((await api.fetch(`${P}/whoami`, { token: api.operatorToken })).status).toBe(200);
    // The fuzz must have got past validation at least sometimes, or it proved little.
    const refusedOnly = [...outcomes].filter(([, tally]) =>
      Object.keys(tally).every((c) => c === '400'),
    );
    expect(refusedOnly.map(([name]) => name)).toEqual([]);
  });
});

describe('deeply nested JSON at every object-valued field', () => {
  const bodyRoutes = FUZZED.filter(([, def]) => def.body && !('anonymous' in def.access));

  it.each(bodyRoutes.map(([name]) => name))('%s', async (name) => {
    const def: RouteDef = ROUTES[name];
    const asGateway = !('anonymous' in def.access) && !def.access.roles.includes('operator');
    const params = Object.fromEntries(
      pathParams(def).map((p) => [p, asGateway && p === 'name' ? GATEWAY : fixtureParam(name, p)]),
    );
    const base = template(name);
    const objectPaths = pathsOf(base).filter((path) => {
      const value = path.reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], base);
      return value !== null && typeof value === 'object';
    });
    // Just under the limit (it must still work, not overflow) and far past it.
    const bodies = objectPaths.flatMap((path) =>
      [240, 5000].map((depth) =>
        JSON.stringify(setAt(base, path, '__deep__')).replace('"__deep__"', deepObject(depth)),
      ),
    );
    bodies.push(deepArray(100_000));
    for (const bytes of bodies) {
      const attempt: Attempt = {
        params,
        query: [],
        body: { bytes, contentType: 'application/json' },
      };
      await judge(name, attempt, asGateway ? gatewayToken : api.operatorToken).catch((error) => {
        throw new Error(`${(error as Error).message}\n  for ${describeAttempt(attempt)}`);
      });
    }
  });
});

describe('hand-picked hostile requests', () => {
  const headersOf = (response: Response) =>
    SECURITY_HEADERS.filter((h) => !response.headers.get(h));

  it('answers a malformed URL, an unknown route and an overlong parameter with a Status', async () => {
    for (const path of [
      `${P}/mediationpolicies/%ZZ`,
      `${P}/nope`,
      `${P}/mediationpolicies/${'a'.repeat(2000)}`,
    ]) {
      const response = await api.fetch(path, { token: api.operatorToken });
      const status = await response.json();
      expect(status, path).toMatchObject({ kind: 'Status', code: response.status });
      expect([400, 404], path).toContain(response.status);
      expect(headersOf(response), path).toEqual([]);
    }
  });

  it('refuses U+0000 in a path, a query or a body with a 400, writing nothing', async () => {
    const before = await snapshot();
    const body = JSON.stringify({
      apiVersion: 'toolgate.dev/v1',
      kind: 'MediationPolicy',
      metadata: { name: 'nul', annotations: { note: 'a\u0000b' } },
      spec: { rules: [] },
    });
    for (const [path, init] of [
      [`${P}/receipts/%00`, {}],
      [`${P}/receipts?identity=a%00b`, {}],
      [`${P}/auditlog?actor=%00`, {}],
      [`${P}/mediationpolicies`, { method: 'POST', body }],
    ] as const) {
      const response = await api.fetch(path, { ...init, token: api.operatorToken });
      expect(await response.json(), path).toMatchObject({ kind: 'Status', code: 400 });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('maps an unsupported media type to 400', async () => {
    const response = await api.fetch(`${P}/mediationpolicies`, {
      method: 'POST',
      token: api.operatorToken,
      body: new Uint8Array(Buffer.from('{}')),
      headers: { 'content-type': 'application/x-unknown' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      kind: 'Status',
      code: 400,
      reason: 'BadRequest',
    });
  });

  it('accepts a valid name of the longest allowed length in the path', async () => {
    const name = `p${'a'.repeat(252)}`;
    await operator(`${P}/mediationpolicies`, 'POST', {
      apiVersion: 'toolgate.dev/v1',
      kind: 'MediationPolicy',
      metadata: { name },
      spec: { rules: [] },
    });
    expect((await operator(`${P}/mediationpolicies/${name}`)).metadata.name).toBe(name);
  });

  it('sends the security headers on a watch stream too', async () => {
    const response = await api.fetch(`${P}/mediationpolicies?watch=true&timeoutSeconds=1`, {
      token: api.operatorToken,
    });
    expect(response.status).toBe(200);
    expect(headersOf(response)).toEqual([]);
    await response.text(); // ends after timeoutSeconds
  });
});
