import { compactReceipt, hashCanonical, type ToolSet } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { chainOf, fixtureReceiptBody } from '../receipts/receipt-fixtures.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { type Answer, operatorCall } from './quality-fixtures.ts';

/**
 * Text the API cannot store faithfully is refused at the door, on every route that takes a body
 * (issue #19, item 6): invalid UTF-8 (which a lenient decoder would store as U+FFFD) is a 400
 * naming the byte offset, and a lone UTF-16 surrogate in any value or key (which PostgreSQL's
 * jsonb rejects: a 500, or worse, half a write) is a 400 naming the field. Nothing is stored and
 * nothing reaches the audit log.
 */

const P = '/apis/toolgate.dev/v1';
const GATEWAY = 'text-gateway';
const GATEWAY_IDENTITY = 'text-gateway-id';
const POLICY = 'text-policy';
const SCHEMA = { type: 'function', function: { name: 'text_tool', parameters: {} } };
const TABLES = [
  'resources',
  'resource_events',
  'audit_log',
  'policy_revisions',
  'api_tokens',
  'receipts',
  'tool_schemas',
];

/** Where a bad string goes: replaced in the JSON text by the case's value or key. */
const BAD_VALUE = '__bad_value__';
const BAD_KEY = '__bad_key__';

let api: TestApi;
let db: pg.Client;
let gatewayToken: string;
/** For the reliability table: hostile bodies sent, and how many were answered 5xx. */
const tally = { tried: 0, serverErrors: 0 };

beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
  gatewayToken = (await api.identity(GATEWAY_IDENTITY, ['gateway'])).token;
  await operatorCall(api, `${P}/gateways`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'Gateway',
    metadata: { name: GATEWAY },
    spec: { identity: GATEWAY_IDENTITY },
  });
  await operatorCall(api, `${P}/mediationpolicies`, 'POST', policy(POLICY, 'kept'));
  await operatorCall(api, `${P}/identities`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'Identity',
    metadata: { name: 'text-person' },
    spec: { type: 'human', roles: ['auditor'] },
  });
});
afterAll(async () => {
  recordFigures({ source: 'apps/api/src/quality/text-input.test.ts', badInputs: tally });
  await db?.end();
  await api?.close();
});

function policy(name: string, note: string, match = 'delete_*', labels = { team: 'text' }) {
  return {
    apiVersion: 'toolgate.dev/v1',
    kind: 'MediationPolicy',
    metadata: { name, labels, annotations: { note } },
    spec: { rules: [{ id: 'hide', action: 'hide', match: { name: match } }] },
  };
}

/** Row counts of every table and the newest resourceVersion: any write changes one of them. */
async function snapshot(): Promise<Record<string, string>> {
  const counts = TABLES.map((table) => `(SELECT count(*) FROM ${table})::text AS ${table}`);
  const { rows } = await db.query(
    `SELECT ${counts.join(', ')}, (SELECT coalesce(max(resource_version), 0) FROM resources)::text AS rv`,
  );
  return rows[0];
}

interface BodyRoute {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  asGateway?: boolean;
  /** A valid body holding {@link BAD_VALUE} once (and {@link BAD_KEY} as a key where given). */
  body(): Promise<unknown> | unknown;
  /** Where the bad value (and the bad key) sit, as the API names them. */
  field: string;
  keyField?: string;
}

async function resourceVersion(path: string): Promise<string> {
  return (await operatorCall(api, path)).metadata.resourceVersion;
}

/** One valid receipt, in its stored form, with the tool set it references. */
function ingestBody(human: string) {
  const [receipt] = chainOf([
    fixtureReceiptBody({
      id: `text-r-${human.length}`,
      gateway: GATEWAY,
      receivedAt: '2026-01-02T03:04:05.000Z',
      identity: { human, session: 's-1' },
    }),
  ]);
  const { stored, toolSet } = compactReceipt(receipt as NonNullable<typeof receipt>);
  const toolSets: Record<string, ToolSet> = { [stored.tool_set_hash]: toolSet };
  return { receipts: [stored], tool_sets: toolSets };
}

/** Every kind of route that takes a body: create, replace, status, actions, tokens, ingest. */
const ROUTES: BodyRoute[] = [
  {
    name: 'create (annotations)',
    method: 'POST',
    path: `${P}/mediationpolicies`,
    body: () => ({
      ...policy('text-new', BAD_VALUE),
      metadata: { name: 'text-new', annotations: { note: BAD_VALUE, [BAD_KEY]: 'v' } },
    }),
    field: 'metadata.annotations.note',
    keyField: 'metadata.annotations.(key)',
  },
  {
    name: 'create (labels)',
    method: 'POST',
    path: `${P}/identities`,
    body: () => ({
      apiVersion: 'toolgate.dev/v1',
      kind: 'Identity',
      metadata: { name: 'text-someone', labels: { team: BAD_VALUE, [BAD_KEY]: 'x' } },
      spec: { type: 'human', roles: ['auditor'] },
    }),
    field: 'metadata.labels.team',
    keyField: 'metadata.labels.(key)',
  },
  {
    name: 'replace (spec field)',
    method: 'PUT',
    path: `${P}/mediationpolicies/${POLICY}`,
    body: async () => {
      const body = policy(POLICY, 'kept', BAD_VALUE) as Record<string, unknown>;
      const rv = await resourceVersion(`${P}/mediationpolicies/${POLICY}`);
      return { ...body, metadata: { ...(body.metadata as object), resourceVersion: rv } };
    },
    field: 'spec.rules[0].match.name',
  },
  {
    name: 'gateway status message',
    method: 'PUT',
    path: `${P}/gateways/${GATEWAY}/status`,
    asGateway: true,
    body: async () => ({
      metadata: { resourceVersion: await resourceVersion(`${P}/gateways/${GATEWAY}`) },
      status: {
        conditions: [
          {
            type: 'Synced',
            status: 'False',
            reason: 'BundleRejected',
            message: BAD_VALUE,
            lastTransitionTime: '2026-01-02T03:04:05Z',
          },
        ],
        spoolDepth: 0,
      },
    }),
    field: 'status.conditions[0].message',
  },
  {
    name: 'receipts ingest',
    method: 'POST',
    path: `${P}/gateways/${GATEWAY}/receipts`,
    asGateway: true,
    body: () => ingestBody(BAD_VALUE),
    field: 'receipts[0].identity.human',
  },
  {
    name: 'action (preview)',
    method: 'POST',
    path: `${P}/mediationpolicypreviews`,
    body: () => ({
      spec: { rules: [] },
      surface: 'openai-chat',
      request: { model: 'm', messages: [{ role: 'user', content: BAD_VALUE }] },
    }),
    field: 'request.messages[0].content',
  },
  {
    name: 'action (rollback)',
    method: 'POST',
    path: `${P}/mediationpolicies/${POLICY}/rollback`,
    body: () => ({ toGeneration: 1, resourceVersion: BAD_VALUE }),
    field: 'resourceVersion',
  },
  {
    name: 'token issue',
    method: 'POST',
    path: `${P}/identities/text-person/tokens`,
    body: () => ({ description: BAD_VALUE, [BAD_KEY]: 1 }),
    field: 'description',
    keyField: '(key)',
  },
  {
    name: 'schema store',
    method: 'PUT',
    path: `${P}/schemas/${hashCanonical(SCHEMA)}`,
    body: () => ({ ...SCHEMA, function: { ...SCHEMA.function, description: BAD_VALUE } }),
    field: 'function.description',
  },
];

async function send(route: BodyRoute, bytes: string | Uint8Array) {
  const response = await api.fetch(route.path, {
    method: route.method,
    token: route.asGateway ? gatewayToken : api.operatorToken,
    body: bytes,
    headers: { 'content-type': 'application/json' },
  });
  tally.tried++;
  if (response.status >= 500) tally.serverErrors++;
  return response;
}

interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { causes?: Array<{ field: string; message: string }> };
}

/** Sends `bytes`; expects a 400 Status and no write at all. */
async function expectRefused(route: BodyRoute, bytes: string | Uint8Array): Promise<StatusBody> {
  const before = await snapshot();
  const response = await send(route, bytes);
  const status = (await response.json()) as StatusBody;
  expect(response.status, `${route.name}: ${JSON.stringify(status)}`).toBe(400);
  expect(status).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
  expect(await snapshot(), `${route.name} wrote something`).toEqual(before);
  return status;
}

async function validText(route: BodyRoute, value: string, key = 'ok_key'): Promise<string> {
  const text = JSON.stringify(await route.body());
  return text.replaceAll(`"${BAD_VALUE}"`, JSON.stringify(value)).replaceAll(BAD_KEY, key);
}

describe('lone surrogates', () => {
  // JSON escapes: the only way a lone surrogate arrives in a body that is valid UTF-8.
  const LONE = [
    ['a lone high surrogate', '"a\\ud800b"'],
    ['a lone low surrogate', '"\\udc00"'],
    ['a high surrogate at the end', '"note \\uDBFF"'],
    ['two high surrogates', '"\\ud83d\\ud83d"'],
  ] as const;

  it.each(ROUTES.map((route) => [route.name, route] as const))(
    'in a value: %s → 400 naming the field, nothing stored',
    async (_name, route) => {
      for (const [kind, escaped] of LONE) {
        const text = (await validText(route, 'placeholder')).replace('"placeholder"', escaped);
        const status = await expectRefused(route, text);
        expect(
          status.details?.causes?.map((c) => c.field),
          kind,
        ).toEqual([route.field]);
        expect(status.message, kind).toContain(route.field);
        expect(status.message, kind).toMatch(/surrogate/);
      }
    },
  );

  it.each(ROUTES.filter((r) => r.keyField).map((route) => [route.name, route] as const))(
    'in a key: %s → 400 naming the object, nothing stored',
    async (_name, route) => {
      const text = (await validText(route, 'fine')).replace('"ok_key"', '"k\\udfffey"');
      const status = await expectRefused(route, text);
      expect(status.details?.causes?.map((c) => c.field)).toEqual([route.keyField]);
    },
  );

  it('refuses one nested past the depth limit without walking it (no stack overflow)', async () => {
    const route = ROUTES[0] as BodyRoute;
    const deep = `${'{"a":'.repeat(100_000)}"\\ud800"${'}'.repeat(100_000)}`;
    const text = JSON.stringify(policy('text-deep', 'placeholder')).replace('"placeholder"', deep);
    const status = await expectRefused(route, text);
    expect(status.message).toMatch(/nests deeper than \d+ levels/);
  });

  it('counts arrays and objects alike: a container at depth 255 passes the parser, 256 not', async () => {
    const route = ROUTES[0] as BodyRoute;
    // `levels` containers, arrays and objects in turn, in place of metadata.annotations.note
    // (depth 3): the innermost is at depth 2 + levels.
    const nested = (levels: number) => {
      const pairs = Math.floor(levels / 2);
      const inner = levels % 2 === 1 ? '[1]' : '1';
      return JSON.stringify(policy('text-depth', 'placeholder')).replace(
        '"placeholder"',
        `${'[{"a":'.repeat(pairs)}${inner}${'}]'.repeat(pairs)}`,
      );
    };
    const deepest = await expectRefused(route, nested(254));
    expect(deepest.message).toMatch(/nests deeper than 256 levels/);
    // One level less reaches the schema, which refuses an array as a note.
    const within = await send(route, nested(253));
    expect(within.status).toBe(422);
    expect(((await within.json()) as StatusBody).message).toContain('metadata.annotations.note');
  });

  it('accepts paired surrogates and an escaped backslash before "ud800"', async () => {
    const route = ROUTES[0] as BodyRoute;
    const text = JSON.stringify(policy('text-emoji', 'placeholder')).replace(
      '"placeholder"',
      '"\\ud83d\\ude00 and \\\\ud800"',
    );
    const response = await send(route, text);
    expect(response.status).toBe(201);
    const created = (await response.json()) as Answer;
    expect(created.metadata.annotations).toEqual({ note: '😀 and \\ud800' });
  });
});

describe('invalid UTF-8', () => {
  const KINDS = [
    ['a truncated two-byte sequence', [0xc3]],
    ['a truncated three-byte sequence', [0xe2, 0x82]],
    ['a truncated four-byte sequence', [0xf0, 0x9f, 0x98]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['an overlong three-byte NUL', [0xe0, 0x80, 0x80]],
    ['a lone continuation byte', [0x80]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a byte never in UTF-8', [0xff]],
  ] as const;

  it.each(ROUTES.map((route) => [route.name, route] as const))(
    '%s → 400 with the byte offset, nothing stored (not U+FFFD)',
    async (_name, route) => {
      const text = await validText(route, 'before-after');
      const at = Buffer.byteLength(text.slice(0, text.indexOf('before-after') + 'before'.length));
      const whole = Buffer.from(text);
      for (const [kind, bytes] of KINDS) {
        const body = Buffer.concat([whole.subarray(0, at), Buffer.from(bytes), whole.subarray(at)]);
        const status = await expectRefused(route, new Uint8Array(body));
        expect(status.message, kind).toBe(`request body is not valid UTF-8 at byte ${at}`);
      }
    },
  );

  it('stores valid multi-byte text as sent', async () => {
    const route = ROUTES[0] as BodyRoute;
    const note = 'é € 😀 \u{10ffff}';
    const response = await send(route, JSON.stringify(policy('text-multibyte', note)));
    expect(response.status).toBe(201);
    const stored = await operatorCall(api, `${P}/mediationpolicies/text-multibyte`);
    expect(stored.metadata.annotations).toEqual({ note });
  });

  it('refuses a charset other than UTF-8', async () => {
    const response = await api.fetch(`${P}/mediationpolicies`, {
      method: 'POST',
      token: api.operatorToken,
      body: new Uint8Array(
        Buffer.from(JSON.stringify(policy('text-latin1', 'caf\u00e9')), 'latin1'),
      ),
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(
      (await api.fetch(`${P}/mediationpolicies/text-latin1`, { token: api.operatorToken })).status,
    ).toBe(404);
  });
});
