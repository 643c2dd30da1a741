import type { AuditEntry } from '@toolgate/contract';
import type { ToolCallApproval } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ENV, LOGGER } from '../database/database.tokens.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';
import { ApprovalExpiryRepository } from './approval-expiry.repository.ts';
import { ApprovalExpirySweeper } from './approval-expiry.sweeper.ts';
import { approvalRequest, newActionId } from './approvals-testing.ts';

const P = '/apis/toolgate.dev/v1/toolcallapprovals';

let api: TestApi;
let gatewayAToken: string;
let gatewayBToken: string;
let auditorToken: string;

beforeAll(async () => {
  api = await startTestApi({ APPROVAL_SWEEP_INTERVAL_MS: '100' });
  gatewayAToken = await gatewayToken('edge-a');
  gatewayBToken = await gatewayToken('edge-b');
  auditorToken = (await api.identity('approvals-auditor', ['auditor'])).token;
});
afterAll(() => api?.close());

/** A Gateway and the token of its identity, as a running gateway holds it. */
async function gatewayToken(name: string): Promise<string> {
  const { token } = await api.identity(`${name}-identity`, ['gateway']);
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name },
      spec: { identity: `${name}-identity` },
    },
  });
  return token;
}

function post(name: string, body: unknown, token: string) {
  return api.fetch(`${P}/${name}/request`, { method: 'POST', token, body: JSON.stringify(body) });
}

function decide(name: string, body: unknown, token = api.operatorToken) {
  return api.fetch(`${P}/${name}/approval`, { method: 'PUT', token, body: JSON.stringify(body) });
}

async function requested(spec = approvalRequest('edge-a')) {
  const response = await post(spec.spec.actionId, spec, gatewayAToken);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as ToolCallApproval;
}

async function auditOf(name: string): Promise<AuditEntry[]> {
  const page = await api.operator.call('audit.list', { query: { kind: 'ToolCallApproval', name } });
  return [...(page?.items ?? [])].reverse();
}

/** The approval once the sweeper has written its `Expired` condition. */
async function markedExpired(name: string): Promise<ToolCallApproval> {
  let approval: ToolCallApproval | undefined;
  await until(
    async () => {
      approval = await api.operator.call('toolCallApprovals.get', { params: { name } });
      return approval.status?.conditions.some((c) => c.type === 'Expired') ?? false;
    },
    5000,
    `${name} marked Expired`,
  );
  return approval as ToolCallApproval;
}

const stateOf = (approval: ToolCallApproval) =>
  approval.status?.conditions.map((c) => `${c.type}=${c.status}:${c.reason}`);

describe('POST …/toolcallapprovals/{name}/request', () => {
  it('creates a pending approval, 201, open for the TTL', async () => {
    const before = Date.now();
    const body = approvalRequest('edge-a', { ttlSeconds: 600 });
    const created = await requested(body);
    expect(created.metadata.name).toBe(body.spec.actionId);
    expect(created.spec).toEqual(body.spec);
    expect(created.status?.conditions).toEqual([]);
    expect(created.status?.requests).toBe(1);
    const requestedAt = Date.parse(created.status?.requestedAt as string);
    expect(requestedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.status?.expiresAt as string) - requestedAt).toBe(600_000);
    const read = await api.operator.call('toolCallApprovals.get', {
      params: { name: body.spec.actionId },
    });
    expect(read).toEqual(created);
    expect((await auditOf(body.spec.actionId)).map((e) => [e.verb, e.actor])).toEqual([
      ['create', 'edge-a-identity'],
    ]);
  });

  it('answers a repeated request with the object and writes nothing (retry loops stay free)', async () => {
    const body = approvalRequest('edge-a');
    const created = await requested(body);
    const again = { spec: { ...body.spec, receiptId: 'rcpt_another', arguments: { x: 1 } } };
    for (let i = 0; i < 5; i++) {
      const response = await post(body.spec.actionId, again, gatewayAToken);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(created);
    }
    const decided = await decide(body.spec.actionId, { decision: 'Approve' });
    const approved = (await decided.json()) as ToolCallApproval;
    const response = await post(body.spec.actionId, again, gatewayAToken);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(approved);
    expect((await auditOf(body.spec.actionId)).map((e) => e.verb)).toEqual(['create', 'approve']);
  });

  it('creates one object under concurrent identical requests, with no 500', async () => {
    const body = approvalRequest('edge-a');
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => post(body.spec.actionId, body, gatewayAToken)),
    );
    const codes = responses.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 200)).toHaveLength(11);
    const uids = new Set(
      await Promise.all(
        responses.map(async (r) => ((await r.json()) as ToolCallApproval).metadata.uid),
      ),
    );
    expect(uids.size).toBe(1);
    expect((await auditOf(body.spec.actionId)).map((e) => e.verb)).toEqual(['create']);
  });

  it("refuses another gateway's spec.gateway, and every role but gateway, with 403", async () => {
    const body = approvalRequest('edge-a');
    const name = body.spec.actionId;
    const other = await post(name, body, gatewayBToken);
    expect(other.status).toBe(403);
    expect((await readStatus(other)).message).toMatch(/own gateway/);
    const missing = approvalRequest('no-such-gateway');
    expect((await post(missing.spec.actionId, missing, gatewayAToken)).status).toBe(403);
    for (const token of [api.operatorToken, auditorToken]) {
      expect((await post(name, body, token)).status).toBe(403);
    }
    expect((await api.fetch(`${P}/${name}`, { token: api.operatorToken })).status).toBe(404);
  });

  it('refuses a name other than spec.actionId, and a malformed spec, with 422 naming the field', async () => {
    const body = approvalRequest('edge-a');
    const mismatch = await post(newActionId(), body, gatewayAToken);
    expect(mismatch.status).toBe(422);
    expect((await readStatus(mismatch)).details?.causes?.[0]?.field).toBe('spec.actionId');
    const huge = approvalRequest('edge-a', { arguments: { blob: 'x'.repeat(20_000) } });
    const tooBig = await post(huge.spec.actionId, huge, gatewayAToken);
    expect(tooBig.status).toBe(422);
    expect((await readStatus(tooBig)).details?.causes?.[0]?.field).toBe('spec.arguments');
    const badTtl = approvalRequest('edge-a', { ttlSeconds: 0 });
    const ttl = await post(badTtl.spec.actionId, badTtl, gatewayAToken);
    expect((await readStatus(ttl)).details?.causes?.[0]?.field).toBe('spec.ttlSeconds');
    const extra = { ...approvalRequest('edge-a'), status: { conditions: [] } };
    expect((await post(extra.spec.actionId, extra, gatewayAToken)).status).toBe(422);
  });

  it('scrubs secret-shaped arguments and U+0000 before storing them', async () => {
    // Built at run time: no secret-shaped literal in the repository.
    const key = ['sk', 'proj', 'A1b2C3d4E5f6G7h8'].join('-');
    const body = approvalRequest('edge-a', {
      arguments: { token: 'plain-value', note: `use ${key} please`, nul: 'a\u0000b' },
    });
    const created = await requested(body);
    expect(created.spec.arguments).toEqual({
      token: '[REDACTED]',
      note: 'use [REDACTED] please',
      nul: 'a\ufffdb',
    });
    expect(JSON.stringify(created)).not.toContain(key);
  });
});

describe('PUT …/toolcallapprovals/{name}/approval', () => {
  it('approves: Approved=True, who, when, and a new expiresAt', async () => {
    const created = await requested(approvalRequest('edge-a', { ttlSeconds: 120 }));
    const response = await decide(created.metadata.name, {
      decision: 'Approve',
      reason: 'ticket OPS-42',
    });
    expect(response.status).toBe(200);
    const approved = (await response.json()) as ToolCallApproval;
    expect(stateOf(approved)).toEqual(['Approved=True:ApprovedByOperator']);
    expect(approved.status?.conditions[0]?.message).toBe('approved by admin: ticket OPS-42');
    expect(approved.status?.decidedBy).toBe('admin');
    const decidedAt = Date.parse(approved.status?.decidedAt as string);
    expect(Date.parse(approved.status?.expiresAt as string) - decidedAt).toBe(120_000);
    expect(approved.metadata.generation).toBe(created.metadata.generation);
    const audit = await auditOf(created.metadata.name);
    expect(audit.map((e) => [e.verb, e.actor])).toEqual([
      ['create', 'edge-a-identity'],
      ['approve', 'admin'],
    ]);
    expect(audit[1]?.beforeHash).not.toBe(audit[1]?.afterHash);
  });

  it('denies, and refuses a second decision with 409', async () => {
    const created = await requested();
    const denied = (await (
      await decide(created.metadata.name, { decision: 'Deny' })
    ).json()) as ToolCallApproval;
    expect(stateOf(denied)).toEqual(['Denied=True:DeniedByOperator']);
    expect(denied.status?.conditions[0]?.message).toBe('denied by admin');
    for (const decision of ['Approve', 'Deny']) {
      const again = await decide(created.metadata.name, { decision });
      expect(again.status).toBe(409);
      expect((await readStatus(again)).message).toMatch(/already denied by admin/);
    }
  });

  it('answers 404 for an absent approval, 403 for auditors and gateways, 422 for a bad body', async () => {
    expect((await decide(newActionId(), { decision: 'Approve' })).status).toBe(404);
    const created = await requested();
    for (const token of [auditorToken, gatewayAToken]) {
      expect((await decide(created.metadata.name, { decision: 'Approve' }, token)).status).toBe(
        403,
      );
    }
    const bad = await decide(created.metadata.name, { decision: 'Maybe' });
    expect(bad.status).toBe(422);
    expect((await readStatus(bad)).details?.causes?.[0]?.field).toBe('decision');
    const read = await api.operator.call('toolCallApprovals.get', {
      params: { name: created.metadata.name },
    });
    expect(read).toEqual(created);
  });
});

describe('reading and deleting', () => {
  it('lets auditors and gateways read, and only operators delete', async () => {
    const created = await requested();
    const name = created.metadata.name;
    for (const token of [auditorToken, gatewayBToken]) {
      const list = await api.fetch(P, { token });
      expect(list.status).toBe(200);
      const items = ((await list.json()) as { items: ToolCallApproval[] }).items;
      expect(items.map((i) => i.metadata.name)).toContain(name);
      expect((await api.fetch(`${P}/${name}`, { token })).status).toBe(200);
      expect((await api.fetch(`${P}/${name}`, { method: 'DELETE', token })).status).toBe(403);
    }
    for (const method of ['POST', 'PUT']) {
      const path = method === 'POST' ? P : `${P}/${name}`;
      const response = await api.fetch(path, {
        method,
        token: api.operatorToken,
        body: JSON.stringify({ ...created }),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect(
      (
        await api.fetch(`${P}/${name}/status`, {
          method: 'PUT',
          token: api.operatorToken,
          body: '{}',
        })
      ).status,
    ).toBe(404);
    const deleted = await api.fetch(`${P}/${name}`, { method: 'DELETE', token: api.operatorToken });
    expect(deleted.status).toBe(200);
    expect((await api.fetch(`${P}/${name}`, { token: auditorToken })).status).toBe(404);
  });
});

describe('expiry', () => {
  it('marks an unanswered request Expired (TtlElapsed), visible in a watch stream', async () => {
    const list = await api.operator.call('toolCallApprovals.list', {});
    const controller = new AbortController();
    const watch = await api.fetch(
      `${P}?watch=true&resourceVersion=${list?.metadata.resourceVersion}`,
      {
        token: gatewayAToken,
        signal: controller.signal,
      },
    );
    expect(watch.status).toBe(200);
    const created = await requested(approvalRequest('edge-a', { ttlSeconds: 1 }));
    const name = created.metadata.name;
    const events: Array<{ type: string; object: ToolCallApproval }> = [];
    const reader = watch.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    let buffer = '';
    const deadline = setTimeout(() => controller.abort(), 8000);
    while (!events.some((e) => e.object.metadata.name === name && e.type === 'MODIFIED')) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += new TextDecoder().decode(value);
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line) events.push(JSON.parse(line));
    }
    clearTimeout(deadline);
    controller.abort();
    const mine = events.filter((e) => e.object.metadata.name === name);
    expect(mine.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    const expired = mine[1]?.object as ToolCallApproval;
    expect(stateOf(expired)).toEqual(['Expired=True:TtlElapsed']);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(created.status?.expiresAt as string));
    expect((await auditOf(name)).map((e) => [e.verb, e.actor])).toEqual([
      ['create', 'edge-a-identity'],
      ['expire', 'system:approval-expiry'],
    ]);
  });

  it('expires a decision at its TTL; deciding an expired approval is a 409', async () => {
    const created = await requested(approvalRequest('edge-a', { ttlSeconds: 1 }));
    const name = created.metadata.name;
    await decide(name, { decision: 'Approve' });
    const expired = await markedExpired(name);
    expect(stateOf(expired)).toEqual([
      'Approved=True:ApprovedByOperator',
      'Expired=True:TtlElapsed',
    ]);
    const late = await decide(name, { decision: 'Deny' });
    expect(late.status).toBe(409);
    expect((await readStatus(late)).message).toMatch(
      /expired: the agent retries the call to ask again/,
    );
  });

  it('re-opens an expired approval as pending on the next request, under the new spec', async () => {
    const first = approvalRequest('edge-a', { ttlSeconds: 1 });
    const name = first.spec.actionId;
    const created = await requested(first);
    await decide(name, { decision: 'Deny', reason: 'not now' });
    await markedExpired(name);
    const second = { spec: { ...first.spec, ttlSeconds: 300, receiptId: 'rcpt_second' } };
    const response = await post(name, second, gatewayAToken);
    expect(response.status).toBe(200);
    const reopened = (await response.json()) as ToolCallApproval;
    expect(stateOf(reopened)).toEqual(['Expired=False:Reopened']);
    expect(reopened.spec).toEqual(second.spec);
    expect(reopened.metadata.uid).toBe(created.metadata.uid);
    expect(reopened.status?.requests).toBe(2);
    expect(reopened.status?.decidedBy).toBeUndefined();
    expect(Date.parse(reopened.status?.requestedAt as string)).toBeGreaterThan(
      Date.parse(created.status?.requestedAt as string),
    );
    expect((await decide(name, { decision: 'Approve' })).status).toBe(200);
    expect((await auditOf(name)).map((e) => e.verb)).toEqual([
      'create',
      'deny',
      'expire',
      'reopen',
      'approve',
    ]);
  });
});

describe('with the sweeper idle (clock-only expiry, and replicas sweeping at once)', () => {
  let idle: TestApi;
  let token: string;
  beforeAll(async () => {
    idle = await startTestApi({ APPROVAL_SWEEP_INTERVAL_MS: '3600000' });
    token = (await idle.identity('edge-c-identity', ['gateway'])).token;
    await idle.operator.call('gateways.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'Gateway',
        metadata: { name: 'edge-c' },
        spec: { identity: 'edge-c-identity' },
      },
    });
  });
  afterAll(() => idle?.close());

  const send = (body: ReturnType<typeof approvalRequest>) =>
    idle.fetch(`${P}/${body.spec.actionId}/request`, {
      method: 'POST',
      token,
      body: JSON.stringify(body),
    });

  it('re-opens by the clock before the sweeper has written Expired', async () => {
    const body = approvalRequest('edge-c', { ttlSeconds: 1 });
    expect((await send(body)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await send(body);
    expect(again.status).toBe(200);
    const reopened = (await again.json()) as ToolCallApproval;
    expect(reopened.status?.requests).toBe(2);
    expect(stateOf(reopened)).toEqual(['Expired=False:Reopened']);
  });

  it('deletes expired approvals once their retention is over, and nothing else', async () => {
    const old = approvalRequest('edge-c', { ttlSeconds: 1 });
    const open = approvalRequest('edge-c', { ttlSeconds: 3600 });
    for (const body of [old, open]) expect((await send(body)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const sweeper = idle.app.get(ApprovalExpirySweeper);
    await sweeper.sweep();
    const retention = idle.app.get(API_ENV).APPROVAL_RETENTION_MS;
    // Within the retention: kept.
    expect(await sweeper.purge(new Date(Date.now() + retention - 60_000))).toBe(0);
    // Past it: the expired one goes (audited as a delete), the open one stays.
    const later = new Date(Date.now() + retention + 1_000);
    expect(await sweeper.purge(later)).toBeGreaterThanOrEqual(1);
    const get = (name: string) => idle.fetch(`${P}/${name}`, { token: idle.operatorToken });
    expect((await get(old.spec.actionId)).status).toBe(404);
    expect((await get(open.spec.actionId)).status).toBe(200);
    const page = await idle.operator.call('audit.list', {
      query: { kind: 'ToolCallApproval', name: old.spec.actionId },
    });
    expect(page?.items.map((e) => e.verb).sort()).toEqual(['create', 'delete', 'expire']);
  });

  it('writes each expiry once when two replicas sweep at the same moment', async () => {
    const bodies = Array.from({ length: 5 }, () => approvalRequest('edge-c', { ttlSeconds: 1 }));
    for (const body of bodies) expect((await send(body)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const own = idle.app.get(ApprovalExpirySweeper);
    // A second replica's sweeper: same database, its own instance.
    const replica = new ApprovalExpirySweeper(
      idle.app.get(ApprovalExpiryRepository),
      idle.app.get(ResourceStore),
      idle.app.get(API_ENV),
      idle.app.get(LOGGER),
    );
    const due = await idle.app.get(ApprovalExpiryRepository).dueBefore(new Date(), 1000);
    expect(due).toEqual(expect.arrayContaining(bodies.map((b) => b.spec.actionId)));
    const [a, b] = await Promise.all([own.sweep(), replica.sweep()]);
    expect(a + b).toBe(due.length);
    expect(await own.sweep()).toBe(0);
    for (const body of bodies) {
      const page = await idle.operator.call('audit.list', {
        query: { kind: 'ToolCallApproval', name: body.spec.actionId },
      });
      expect(page?.items.map((e) => e.verb).sort()).toEqual(['create', 'expire']);
    }
  });
});
