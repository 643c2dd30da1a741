import type { ToolCallApproval } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { approvalRequest } from '../../../api/src/tool-call-approvals/approvals-testing.ts';
import { type CliRun, runCli, tempDir, writeFiles } from '../testing/run-cli.ts';

let api: TestApi;
let gatewayToken: string;
let auditorToken: string;

beforeAll(async () => {
  api = await startTestApi();
  gatewayToken = (await api.identity('edge-cli-identity', ['gateway'])).token;
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: 'edge-cli' },
      spec: { identity: 'edge-cli-identity' },
    },
  });
  auditorToken = (await api.identity('approvals-cli-auditor', ['auditor'])).token;
});
afterAll(async () => {
  await api?.close();
});

function toolgate(token: string, ...args: string[]): Promise<CliRun> {
  return runCli([...args, '--api-url', api.url, '--token', token]);
}

/** A pending approval, requested over HTTP as a gateway does. */
async function pending(overrides: Parameters<typeof approvalRequest>[1] = {}) {
  const body = approvalRequest('edge-cli', overrides);
  const response = await api.fetch(
    `/apis/toolgate.dev/v1/toolcallapprovals/${body.spec.actionId}/request`,
    { method: 'POST', token: gatewayToken, body: JSON.stringify(body) },
  );
  expect(response.status).toBe(201);
  return (await response.json()) as ToolCallApproval;
}

describe('toolgate approvals', () => {
  it('lists approvals with state, tool, identity, gateway, age and expiry; filters by state', async () => {
    const mail = await pending({ tool: 'send_email' });
    const pr = await pending({
      tool: 'create_pull_request',
      identity: { service: 'ci-bot', binding: 'claimed' },
    });
    expect((await toolgate(api.operatorToken, 'approvals', 'approve', pr.metadata.name)).code).toBe(
      0,
    );

    const all = await toolgate(auditorToken, 'approvals', 'list');
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'STATE',
      'TOOL',
      'IDENTITY',
      'GATEWAY',
      'AGE',
      'EXPIRES',
    ]);
    const row = (name: string) => lines.find((l) => l.startsWith(name))?.split(/\s{2,}/);
    expect(row(mail.metadata.name)).toEqual([
      mail.metadata.name,
      'pending',
      'send_email',
      'alice (session sess-1)',
      'edge-cli',
      expect.stringMatching(/^\d+s$/),
      expect.stringMatching(/^in (59m|60m)$/),
    ]);
    expect(row(pr.metadata.name)?.slice(1, 4)).toEqual([
      'approved (admin)',
      'create_pull_request',
      'ci-bot',
    ]);

    const onlyPending = await toolgate(auditorToken, 'approvals', 'list', '--state', 'pending');
    expect(onlyPending.stdout).toContain(mail.metadata.name);
    expect(onlyPending.stdout).not.toContain(pr.metadata.name);
    const json = await toolgate(
      auditorToken,
      'approvals',
      'list',
      '--state',
      'approved',
      '-o',
      'json',
    );
    const list = JSON.parse(json.stdout) as { items: ToolCallApproval[] };
    expect(list.items.map((i) => i.metadata.name)).toEqual([pr.metadata.name]);
    expect((await toolgate(auditorToken, 'approvals', 'list', '--state', 'denied')).stdout).toBe(
      'No denied approvals found.\n',
    );
    const wrong = await toolgate(auditorToken, 'approvals', 'list', '--state', 'maybe');
    expect(wrong.code).toBe(2);
  });

  it('shows one approval, and reads through `get approvals` too', async () => {
    const approval = await pending();
    const shown = await toolgate(
      auditorToken,
      'approvals',
      'get',
      approval.metadata.name,
      '-o',
      'json',
    );
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(approval);
    const yaml = await toolgate(auditorToken, 'approvals', 'get', approval.metadata.name);
    expect(yaml.stdout).toContain('tool: send_email');
    expect(yaml.stdout).toContain('external-mail-needs-approval');
    const viaGet = await toolgate(auditorToken, 'get', 'approvals');
    expect(viaGet.stdout).toContain(approval.metadata.name);
    const missing = await toolgate(auditorToken, 'approvals', 'get', `act_${'f'.repeat(32)}`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`ToolCallApproval "act_${'f'.repeat(32)}" not found`);
  });

  it('approves and denies with a reason; a second decision fails with the reason why', async () => {
    const a = await pending();
    const approved = await toolgate(
      api.operatorToken,
      'approvals',
      'approve',
      a.metadata.name,
      '--reason',
      'ticket OPS-42',
    );
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toMatch(
      new RegExp(
        `^toolcallapproval/${a.metadata.name} approved \\(send_email for alice \\(session sess-1\\); stands until .+\\)\\n$`,
      ),
    );
    const stored = await api.operator.call('toolCallApprovals.get', {
      params: { name: a.metadata.name },
    });
    expect(stored?.status?.conditions[0]?.message).toBe('approved by admin: ticket OPS-42');

    const again = await toolgate(api.operatorToken, 'approvals', 'deny', a.metadata.name);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already approved by admin');

    const d = await pending();
    const denied = await toolgate(
      api.operatorToken,
      'approvals',
      'deny',
      d.metadata.name,
      '-o',
      'json',
    );
    expect(denied.code).toBe(0);
    expect((JSON.parse(denied.stdout) as ToolCallApproval).status?.conditions[0]?.type).toBe(
      'Denied',
    );
  });

  it('lets an auditor read but not decide', async () => {
    const approval = await pending();
    const run = await toolgate(auditorToken, 'approvals', 'approve', approval.metadata.name);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/may not call toolCallApprovals\.decide/);
  });

  it('refuses to apply a ToolCallApproval document', async () => {
    const approval = await pending();
    const dir = await writeFiles(tempDir(), {
      'approval.json': JSON.stringify({ ...approval, status: undefined }),
    });
    const run = await toolgate(api.operatorToken, 'apply', '-f', `${dir}/approval.json`);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ToolCallApproval objects are written by the API');
  });
});
