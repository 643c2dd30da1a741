import { type Access, buildPath, ROUTES, type RouteDef, type RouteName } from '@toolgate/contract';
import { hashCanonical, type Role } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { registeredRoutes } from '../common/route-registry.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { type Answer, first, operatorCall } from './quality-fixtures.ts';

/**
 * The access rule of every route, as a person would state it. The runtime matrix below is built
 * from the contract; this table pins the contract, so loosening a rule is a deliberate change
 * here too. `gateway(own)`: a gateway identity only for the Gateway whose `spec.identity` it is.
 */
const EXPECTED_ACCESS: Record<RouteName, string> = {
  'system.healthz': 'anonymous',
  'system.readyz': 'anonymous',
  'system.openapi': 'anonymous',
  'system.docs': 'anonymous',
  'mediationPolicies.list': 'operator auditor',
  'mediationPolicies.create': 'operator',
  'mediationPolicies.get': 'operator auditor',
  'mediationPolicies.replace': 'operator',
  'mediationPolicies.delete': 'operator',
  'mediationPolicies.replaceStatus': 'operator',
  'identities.list': 'operator auditor',
  'identities.create': 'operator',
  'identities.get': 'operator auditor',
  'identities.replace': 'operator',
  'identities.delete': 'operator',
  'identities.replaceStatus': 'operator',
  'capabilityContracts.list': 'operator auditor',
  'capabilityContracts.create': 'operator',
  'capabilityContracts.get': 'operator auditor',
  'capabilityContracts.replace': 'operator',
  'capabilityContracts.delete': 'operator',
  'capabilityContracts.replaceStatus': 'operator',
  'providerProfiles.list': 'operator auditor',
  'providerProfiles.create': 'operator',
  'providerProfiles.get': 'operator auditor',
  'providerProfiles.replace': 'operator',
  'providerProfiles.delete': 'operator',
  'providerProfiles.replaceStatus': 'operator',
  'gateways.list': 'operator auditor gateway(own)',
  'gateways.create': 'operator',
  'gateways.get': 'operator auditor gateway(own)',
  'gateways.replace': 'operator',
  'gateways.delete': 'operator',
  'gateways.replaceStatus': 'operator gateway(own)',
  'gatewaySync.list': 'operator auditor',
  'gatewaySync.history': 'operator auditor',
  // Any gateway may read approvals; `request` checks that spec.gateway is the caller's own.
  'toolCallApprovals.list': 'operator auditor gateway',
  'toolCallApprovals.get': 'operator auditor gateway',
  'toolCallApprovals.delete': 'operator',
  'toolCallApprovals.request': 'gateway',
  'toolCallApprovals.decide': 'operator',
  'mcpServers.list': 'operator auditor',
  'mcpServers.create': 'operator',
  'mcpServers.get': 'operator auditor',
  'mcpServers.replace': 'operator',
  'mcpServers.delete': 'operator',
  'mcpServers.observe': 'gateway',
  'mcpServers.accept': 'operator',
  'mcpServers.definition': 'operator auditor',
  // Operators only: a HostedTool makes every gateway call its endpoint.
  'hostedTools.list': 'operator auditor',
  'hostedTools.create': 'operator',
  'hostedTools.get': 'operator auditor',
  'hostedTools.replace': 'operator',
  'hostedTools.delete': 'operator',
  'policies.revisions': 'operator auditor',
  'policies.revision': 'operator auditor',
  'policies.diff': 'operator auditor',
  'policies.rollback': 'operator',
  'policies.preview': 'operator auditor',
  'tokens.issueToken': 'operator',
  'tokens.listTokens': 'operator auditor',
  'tokens.revokeToken': 'operator',
  'tokens.whoami': 'operator auditor gateway agent',
  'sync.bundle': 'operator gateway(own)',
  'receipts.ingest': 'gateway(own)',
  'receipts.list': 'operator auditor',
  'receipts.count': 'operator auditor',
  'receipts.values': 'operator auditor',
  'receipts.get': 'operator auditor',
  'receipts.toolLinks': 'operator auditor',
  'receipts.verify': 'operator auditor',
  'receipts.putSchema': 'operator gateway',
  'receipts.getSchema': 'operator auditor gateway',
  'overview.get': 'operator auditor',
  'audit.list': 'operator auditor',
};

/** POST routes that only read: an auditor may call them. Every other auditor route is a GET. */
const READ_ONLY_POSTS = new Set<RouteName>(['policies.diff', 'policies.preview']);

/** All a gateway can do (each for its own Gateway where the route names one). */
const GATEWAY_MAY = [
  'gateways.get',
  'gateways.replaceStatus',
  'mcpServers.observe',
  'receipts.getSchema',
  'receipts.ingest',
  'receipts.putSchema',
  'sync.bundle',
  'tokens.whoami',
  'toolCallApprovals.get',
  'toolCallApprovals.list',
  'toolCallApprovals.request',
].sort();

const CALLERS = ['operator', 'auditor', 'gateway', 'otherGateway', 'agent', 'anonymous'] as const;
type Caller = (typeof CALLERS)[number];

const P = '/apis/toolgate.dev/v1';
const POLICY = 'matrix-policy';
const MCP_SERVER = 'matrix-mcp';
const HOSTED_TOOL = 'matrix-hosted';
const VICTIM = 'matrix-victim';
const OWN_GATEWAY = 'gw-a';
const OTHER_GATEWAY = 'gw-b';
const SCHEMA = { type: 'function', function: { name: 'matrix_tool', parameters: {} } };
const SCHEMA_HASH = hashCanonical(SCHEMA);
const SECURITY_HEADERS = [
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'content-security-policy',
];

const ROUTE_ENTRIES = Object.entries(ROUTES) as Array<[RouteName, RouteDef]>;
const AUTHENTICATED = ROUTE_ENTRIES.filter(([, def]) => !('anonymous' in def.access));

let api: TestApi;
let db: pg.Client;
const tokens: Partial<Record<Caller, string>> = {};
let victimTokenId: string;
let seededContract: string;
let seededProfile: string;
/** Stored objects by `group.name`, for realistic create/replace/status bodies. */
const objects: Record<string, Answer> = {};

const operator = (path: string, method = 'GET', body?: unknown) =>
  operatorCall(api, path, method, body);

beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
  tokens.operator = api.operatorToken;
  tokens.auditor = (await api.identity('matrix-auditor', ['auditor'])).token;
  tokens.agent = (await api.identity('matrix-agent', ['agent'])).token;
  tokens.gateway = (await api.identity('gw-a-id', ['gateway'])).token;
  tokens.otherGateway = (await api.identity('gw-b-id', ['gateway'])).token;
  await api.identity(VICTIM, ['auditor']);
  victimTokenId = first(await operator(`${P}/identities/${VICTIM}/tokens`)).id;
  for (const [name, identity] of [
    [OWN_GATEWAY, 'gw-a-id'],
    [OTHER_GATEWAY, 'gw-b-id'],
  ] as const) {
    await operator(`${P}/gateways`, 'POST', {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name, labels: { fleet: 'matrix' } },
      spec: { identity },
    });
  }
  const created = await operator(`${P}/mediationpolicies`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'MediationPolicy',
    metadata: { name: POLICY },
    spec: { rules: [{ id: 'hide-a', action: 'hide', match: { name: 'a' } }] },
  });
  await operator(`${P}/mediationpolicies/${POLICY}`, 'PUT', {
    ...created,
    spec: { rules: [{ id: 'hide-b', action: 'hide', match: { name: 'b' } }] },
  });
  await operator(`${P}/schemas/${encodeURIComponent(SCHEMA_HASH)}`, 'PUT', SCHEMA);
  await operator(`${P}/mcpservers`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'McpServer',
    metadata: { name: MCP_SERVER },
    spec: { url: 'http://127.0.0.1:9/mcp' },
  });
  await operator(`${P}/hostedtools`, 'POST', {
    apiVersion: 'toolgate.dev/v1',
    kind: 'HostedTool',
    metadata: { name: HOSTED_TOOL },
    spec: {
      tool: { name: 'matrix_hosted', description: 'A matrix tool.' },
      endpoint: { url: 'http://127.0.0.1:9/tool' },
    },
  });
  seededContract = first(await operator(`${P}/capabilitycontracts`)).metadata.name;
  seededProfile = first(await operator(`${P}/providerprofiles`)).metadata.name;
  objects.mediationPolicies = await operator(`${P}/mediationpolicies/${POLICY}`);
  objects.identities = await operator(`${P}/identities/${VICTIM}`);
  objects.capabilityContracts = await operator(`${P}/capabilitycontracts/${seededContract}`);
  objects.providerProfiles = await operator(`${P}/providerprofiles/${seededProfile}`);
  objects.gateways = await operator(`${P}/gateways/${OWN_GATEWAY}`);
  objects.mcpServers = await operator(`${P}/mcpservers/${MCP_SERVER}`);
  objects.hostedTools = await operator(`${P}/hostedtools/${HOSTED_TOOL}`);
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

function describeAccess(access: Access): string {
  if ('anonymous' in access) return 'anonymous';
  return access.roles
    .map((role) => (role === 'gateway' && access.ownGateway ? 'gateway(own)' : role))
    .join(' ');
}

/** What the contract's rule says `caller` gets: through (`allow`), 401 or 403. */
function expectedOutcome(name: RouteName, caller: Caller): 'allow' | 401 | 403 {
  const def: RouteDef = ROUTES[name];
  if ('anonymous' in def.access) return 'allow';
  if (caller === 'anonymous') return 401;
  const role: Role = caller === 'otherGateway' ? 'gateway' : caller;
  if (!def.access.roles.includes(role)) return 403;
  if (def.access.ownGateway && role === 'gateway') {
    // Only a route naming a Gateway can be "its own"; the path always names gw-a here.
    return caller === 'gateway' && def.path.includes('/gateways/{name}') ? 'allow' : 403;
  }
  return 'allow';
}

/** `group.op` → the group, which decides which fixture a `{name}` stands for. */
function groupOf(name: RouteName): string {
  return name.slice(0, name.indexOf('.'));
}

function paramsFor(name: RouteName): Record<string, unknown> {
  const group = groupOf(name);
  const names: Record<string, string> = {
    mediationPolicies: POLICY,
    policies: POLICY,
    identities: VICTIM,
    tokens: VICTIM,
    capabilityContracts: seededContract,
    providerProfiles: seededProfile,
    gateways: OWN_GATEWAY,
    gatewaySync: OWN_GATEWAY,
    sync: OWN_GATEWAY,
    receipts: OWN_GATEWAY,
    toolCallApprovals: `act_${'0'.repeat(32)}`,
    mcpServers: MCP_SERVER,
    hostedTools: HOSTED_TOOL,
  };
  return {
    name: names[group],
    generation: 1,
    tokenId: victimTokenId,
    id: 'matrix-receipt',
    hash: SCHEMA_HASH,
    field: 'gateway',
  };
}

/** A realistic body: valid where that is cheap, so an allowed call usually succeeds. */
function bodyFor(name: RouteName): unknown {
  const [group, op] = name.split('.') as [string, string];
  const stored = objects[group];
  if (stored) {
    const { apiVersion, kind, metadata, spec, status } = stored;
    if (op === 'create') {
      const name = `matrix.new_${group.toLowerCase()}.v1`;
      // A capability contract's spec.id is its name.
      const renamed = group === 'capabilityContracts' ? { ...(spec as object), id: name } : spec;
      return { apiVersion, kind, metadata: { name }, spec: renamed };
    }
    if (op === 'replace') return { apiVersion, kind, metadata, spec };
    if (op === 'replaceStatus') return { status: { conditions: [], ...(status as object) } };
  }
  const bodies: Partial<Record<RouteName, unknown>> = {
    'policies.diff': { from: 1, to: 2 },
    'policies.rollback': { toGeneration: 1 },
    'policies.preview': {
      spec: { rules: [] },
      surface: 'openai-chat',
      request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    },
    'tokens.issueToken': { description: 'access matrix' },
    'receipts.ingest': { receipts: [{ id: 'not-a-receipt' }] },
    'receipts.putSchema': SCHEMA,
  };
  return bodies[name] ?? {};
}

function requestFor(name: RouteName) {
  const def: RouteDef = ROUTES[name];
  let path = buildPath(def.path, paramsFor(name));
  // Writes are dry runs, so every caller meets the same fixtures.
  const query = (def.query as z.ZodObject | undefined)?.shape;
  if (query && 'dryRun' in query) path += '?dryRun=All';
  return { path, method: def.method, body: def.body ? JSON.stringify(bodyFor(name)) : undefined };
}

function isStatus(text: string, code: number): boolean {
  try {
    const body = JSON.parse(text) as { kind?: unknown; code?: unknown };
    return body.kind === 'Status' && body.code === code;
  } catch {
    return false;
  }
}

/** The contract route a registered Fastify route serves, by method and path. */
function contractRoutesOf(method: string, url: string): RouteName[] {
  return ROUTE_ENTRIES.filter(
    ([, def]) => def.method === method && def.path.replace(/\{(\w+)\}/g, ':$1') === url,
  ).map(([name]) => name);
}

function registered() {
  const all = registeredRoutes(api.app.getHttpAdapter().getInstance());
  // Fastify adds a HEAD twin to every GET; a HEAD route of its own would still need a rule.
  const gets = new Set(all.filter((r) => r.method === 'GET').map((r) => r.url));
  return all.filter((r) => !(r.method === 'HEAD' && gets.has(r.url)));
}

describe('route inventory', () => {
  it('maps every registered route to exactly one contract route (and so to an access rule)', () => {
    const routes = registered();
    expect(routes.length).toBeGreaterThan(0);
    const problems = routes
      .map((r) => ({ route: `${r.method} ${r.url}`, matches: contractRoutesOf(r.method, r.url) }))
      .filter((r) => r.matches.length !== 1)
      .map(
        (r) =>
          `${r.route} → ${r.matches.length === 0 ? 'no contract route' : r.matches.join(', ')}`,
      );
    expect(problems).toEqual([]);
  });

  it('serves every contract route', () => {
    const served = new Set(registered().map((r) => `${r.method} ${r.url}`));
    const missing = ROUTE_ENTRIES.filter(
      ([, def]) => !served.has(`${def.method} ${def.path.replace(/\{(\w+)\}/g, ':$1')}`),
    ).map(([name]) => name);
    expect(missing).toEqual([]);
  });
});

describe('the contract pins each access rule', () => {
  it('matches the human-readable table, route by route', () => {
    const actual = Object.fromEntries(
      ROUTE_ENTRIES.map(([name, def]) => [name, describeAccess(def.access)]),
    );
    expect(actual).toEqual(EXPECTED_ACCESS);
  });

  it('lets an auditor write nothing', () => {
    const writes = AUTHENTICATED.filter(
      ([name, def]) =>
        expectedOutcome(name, 'auditor') === 'allow' &&
        def.method !== 'GET' &&
        !READ_ONLY_POSTS.has(name),
    ).map(([name]) => name);
    expect(writes).toEqual([]);
  });

  it('lets a gateway only sync, report status, post receipts, store schemas and ask for approvals', () => {
    const allowed = AUTHENTICATED.filter(
      ([name]) => expectedOutcome(name, 'gateway') === 'allow',
    ).map(([name]) => name);
    expect(allowed.sort()).toEqual(GATEWAY_MAY);
  });

  it('lets an agent only ask who it is', () => {
    const allowed = AUTHENTICATED.filter(
      ([name]) => expectedOutcome(name, 'agent') === 'allow',
    ).map(([name]) => name);
    expect(allowed).toEqual(['tokens.whoami']);
  });
});

describe('access matrix: every registered route × every kind of caller', () => {
  // Routes are known only once the app runs; each is checked for all callers in one case.
  const outcomes = new Map<string, number>();

  it.each(ROUTE_ENTRIES.map(([name]) => name))('%s', async (name) => {
    const served = registered().some((r) => contractRoutesOf(r.method, r.url).includes(name));
    if (!served) return; // reported by "serves every contract route"
    const failures: string[] = [];
    for (const caller of CALLERS) {
      const { path, method, body } = requestFor(name);
      const token = tokens[caller];
      const response = await api.fetch(path, {
        method,
        ...(token ? { token } : {}),
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      outcomes.set(`${name}:${caller}`, response.status);
      const expected = expectedOutcome(name, caller);
      const ok =
        expected === 'allow'
          ? response.status !== 401 && response.status !== 403 && response.status < 500
          : response.status === expected;
      if (!ok)
        failures.push(
          `${caller}: expected ${expected}, got ${response.status} ${text.slice(0, 200)}`,
        );
      if (expected !== 'allow' && !isStatus(text, expected)) {
        failures.push(`${caller}: not a Status with code ${expected}: ${text.slice(0, 200)}`);
      }
      for (const header of SECURITY_HEADERS) {
        if (!response.headers.get(header)) failures.push(`${caller}: no ${header} header`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('what each caller can actually reach matches the critical rules', () => {
    expect(outcomes.size, 'needs the matrix cases above to have run').toBeGreaterThan(0);
    const reached = (caller: Caller) =>
      ROUTE_ENTRIES.map(([name]) => name).filter((name) => {
        const status = outcomes.get(`${name}:${caller}`);
        return status !== undefined && status !== 401 && status !== 403;
      });
    const anonymous = ROUTE_ENTRIES.filter(([, def]) => 'anonymous' in def.access).map(([n]) => n);
    const withoutAnonymous = (caller: Caller) =>
      reached(caller).filter((n) => !anonymous.includes(n));
    expect(withoutAnonymous('agent')).toEqual(['tokens.whoami']);
    expect(withoutAnonymous('gateway').sort()).toEqual(GATEWAY_MAY);
    expect(withoutAnonymous('otherGateway').sort()).toEqual([
      // Any gateway reports what the servers it fronts list (every gateway has every server).
      'mcpServers.observe',
      'receipts.getSchema',
      'receipts.putSchema',
      'tokens.whoami',
      // Not gateway-scoped by path: request refuses another gateway's spec.gateway itself.
      'toolCallApprovals.get',
      'toolCallApprovals.list',
      'toolCallApprovals.request',
    ]);
    expect(reached('anonymous')).toEqual(anonymous);
    const auditorWrites = withoutAnonymous('auditor').filter(
      (name) => ROUTES[name].method !== 'GET' && !READ_ONLY_POSTS.has(name),
    );
    expect(auditorWrites).toEqual([]);
  });
});

describe('tokens', () => {
  async function issue(identity: string, body: object = {}) {
    return operator(`${P}/identities/${identity}/tokens`, 'POST', body);
  }
  const whoami = (token: string) => api.fetch(`${P}/whoami`, { token }).then((r) => r.status);

  it('stops working at once when revoked, and only that token', async () => {
    await api.identity('revoke-me', ['auditor']);
    const doomed = await issue('revoke-me');
    const kept = await issue('revoke-me');
    expect(await whoami(doomed.token)).toBe(200);
    await operator(`${P}/identities/revoke-me/tokens/${doomed.id}`, 'DELETE');
    expect(await whoami(doomed.token)).toBe(401);
    expect(await whoami(kept.token)).toBe(200);
  });

  it('stops working at once when it expires', async () => {
    await api.identity('expire-me', ['agent']);
    const issued = await issue('expire-me', { ttlSeconds: 3600 });
    expect(issued.expiresAt).not.toBeNull();
    expect(await whoami(issued.token)).toBe(200);
    const updated = await db.query(
      `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [issued.id],
    );
    expect(updated.rowCount).toBe(1);
    expect(await whoami(issued.token)).toBe(401);
  });

  it('stops working when its identity is deleted', async () => {
    const { token } = await api.identity('delete-me', ['auditor']);
    expect(await whoami(token)).toBe(200);
    await operator(`${P}/identities/delete-me`, 'DELETE');
    expect(await whoami(token)).toBe(401);
  });

  it('answers 401 for malformed and unknown bearer tokens', async () => {
    for (const authorization of [
      'Bearer',
      'Bearer tg_nope',
      'Basic dXNlcjpwdw==',
      `Bearer ${api.operatorToken}x`,
      api.operatorToken,
    ]) {
      const response = await api.fetch(`${P}/whoami`, { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
    }
  });
});

describe('cross-gateway isolation', () => {
  const gatewayA = () => tokens.gateway as string;

  it("gateway A cannot read gateway B's bundle or object", async () => {
    for (const path of [
      `${P}/gateways/${OTHER_GATEWAY}/bundle`,
      `${P}/gateways/${OTHER_GATEWAY}`,
    ]) {
      const response = await api.fetch(path, { token: gatewayA() });
      expect(response.status, path).toBe(403);
    }
    expect(
      (await api.fetch(`${P}/gateways/${OWN_GATEWAY}/bundle`, { token: gatewayA() })).status,
    ).toBe(200);
  });

  it("gateway A cannot write gateway B's status", async () => {
    const before = await operator(`${P}/gateways/${OTHER_GATEWAY}`);
    const response = await api.fetch(`${P}/gateways/${OTHER_GATEWAY}/status`, {
      method: 'PUT',
      token: gatewayA(),
      body: JSON.stringify({
        status: { conditions: [], appliedBundleETag: 'sha256:forged', spoolDepth: 0 },
      }),
    });
    expect(response.status).toBe(403);
    const after = await operator(`${P}/gateways/${OTHER_GATEWAY}`);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.status).toEqual(before.status);
  });

  it("gateway A cannot post gateway B's receipts", async () => {
    const count = async () =>
      Number((await db.query('SELECT count(*) FROM receipts')).rows[0].count);
    const before = await count();
    const response = await api.fetch(`${P}/gateways/${OTHER_GATEWAY}/receipts`, {
      method: 'POST',
      token: gatewayA(),
      body: JSON.stringify({ receipts: [{ id: 'forged', gateway: OTHER_GATEWAY }] }),
    });
    expect(response.status).toBe(403);
    expect(await count()).toBe(before);
  });

  it('a gateway naming a gateway that does not exist is refused, not told it is missing', async () => {
    const response = await api.fetch(`${P}/gateways/no-such-gateway/bundle`, { token: gatewayA() });
    expect(response.status).toBe(403);
  });
});
