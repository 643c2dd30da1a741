import type { BundleMcpServer, Receipt } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { startTestMcpServer, type TestMcpServer } from './testing/test-mcp-server.ts';

/**
 * An agent that wants a hidden MCP tool called, or a call made without a receipt, tries every
 * spelling and every malformed message it can think of, on the wire (raw JSON-RPC over
 * Streamable HTTP, not the SDK's well-formed client). The hidden tool must never reach the
 * upstream, and every call the upstream does get must have a receipt (`pnpm test:reliability`'s
 * evasion row).
 */

let upstream: TestMcpServer;
let gateway: TestGateway;

const ACCEPT = 'application/json, text/event-stream';

beforeAll(async () => {
  upstream = await startTestMcpServer();
  gateway = await startTestGateway();
  const server: BundleMcpServer = {
    name: 'github',
    url: upstream.url,
    headers: [],
    drift: 'warn',
    pins: {},
  };
  await gateway.applyPolicies(
    [
      {
        name: 'mcp',
        spec: {
          rules: [
            { id: 'no-delete', action: 'hide', match: { name: 'github/delete_repo' } },
            { id: 'alias', action: 'rename', match: { name: 'github/search' }, alias: 'find' },
          ],
        },
      },
    ],
    [],
    [server],
  );
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

/** A raw Streamable HTTP session: initialize, then post whatever text the test likes. */
async function rawSession(): Promise<(body: string) => Promise<{ status: number; text: string }>> {
  const endpoint = `${gateway.url}/mcp/github`;
  const init = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'attacker', version: '1' },
      },
    }),
  });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  expect(session).toBeTruthy();
  const post = async (body: string) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': session as string,
        'mcp-protocol-version': '2025-06-18',
      },
      body,
    });
    return { status: response.status, text: await response.text() };
  };
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return post;
}

const call = (name: unknown, id: number | string = 1, extra: object = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, ...extra },
  });

/** Every spelling and shape that could be read as a call to the hidden `delete_repo`. */
const ATTEMPTS: ReadonlyArray<[string, string]> = [
  ['exact name, before any tools/list', call('delete_repo')],
  ['upper case', call('DELETE_REPO')],
  ['mixed case', call('Delete_Repo')],
  ['the rule name server/tool', call('github/delete_repo')],
  ['trailing space', call('delete_repo ')],
  ['leading space', call(' delete_repo')],
  ['NUL suffix', call('delete_repo\u0000')],
  ['zero-width joiner', call('delete\u200d_repo')],
  ['fullwidth letters', call('\uff44elete_repo')],
  ['name as an array', call(['delete_repo'])],
  ['name as an object', call({ name: 'delete_repo' })],
  [
    'duplicate key, the hidden name last',
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","name":"delete_repo","arguments":{}}}`,
  ],
  [
    'duplicate key, the hidden name first',
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repo","name":"find","arguments":{}}}`,
  ],
  ['a batch', `[${call('delete_repo', 1)},${call('find', 2)}]`],
  ['method in other case', call('delete_repo').replace('tools/call', 'Tools/Call')],
  ['target in _meta', call('find', 1, { _meta: { name: 'delete_repo' } })],
  [
    'escaped name',
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\u0064elete_repo","arguments":{}}}`,
  ],
];

describe('MCP evasion: a hidden tool, and calls without receipts', () => {
  it('never lets the hidden tool reach the upstream, and receipts every call that does', async () => {
    const post = await rawSession();
    const before = { calls: upstream.calls.length };
    const answers: Array<{ label: string; status: number; text: string }> = [];
    for (const [label, body] of ATTEMPTS) answers.push({ label, ...(await post(body)) });
    // A legitimate call in the same session, so the count below has something to compare.
    answers.push({
      label: 'allowed alias',
      ...(await post(call('find', 99, { arguments: { q: 'x' } }))),
    });

    const reached = upstream.calls.slice(before.calls);
    expect(reached.map((c) => c.name)).not.toContain('delete_repo');
    expect(reached.every((c) => c.name !== 'delete_repo')).toBe(true);
    // Only the alias (and the duplicate-key message whose last name is the alias) may run.
    expect(new Set(reached.map((c) => c.name))).toEqual(new Set(['search']));
    // Every answer is an HTTP answer the agent can read, never a crash or a hang.
    for (const answer of answers) expect(answer.status, answer.label).toBeLessThan(500);

    await waitForReceipts(reached.length);
    const receipted = (await mcpCalls()).filter(
      (r) => r.response?.tool_calls[0]?.policy_state === 'allowed',
    );
    const unreceipted = Math.max(0, reached.length - receipted.length);
    recordFigures({
      source: 'gateway: MCP hidden-tool evasion',
      evasion: { attempts: ATTEMPTS.length + 1, unreceipted },
    });
    expect(unreceipted).toBe(0);
  });
});

async function mcpCalls(): Promise<Receipt[]> {
  return (await servedReceipts(gateway.spool)).filter(
    (r) => r.surface === 'mcp' && r.mcp?.method === 'tools/call',
  );
}

async function waitForReceipts(count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const allowed = (await mcpCalls()).filter(
      (r) => r.response?.tool_calls[0]?.policy_state === 'allowed',
    );
    if (allowed.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
