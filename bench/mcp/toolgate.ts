import { API_PREFIX, createClient } from '@toolgate/contract';
import { API_VERSION } from '@toolgate/core';
import { TEN_RULES } from '../core-mediation.ts';
import { provision } from '../gateway/call-time.ts';
import type { Processes } from '../gateway/processes.ts';
import { drainSpool } from '../gateway/spool-metrics.ts';
import { startToolgate, type ToolgateStack } from '../gateway/toolgate-stack.ts';
import type { McpTarget } from './load.ts';
import { BASELINE, BENCH_MCP_SERVER, TOOLGATE } from './plan.ts';

const AGENT = 'bench-mcp-agent';

/**
 * Rules for the bench server's tools, as an operator would write them: echo is matched by none,
 * but the gateway still judges every call against the call-time rule (and the ten LLM rules of
 * `startToolgate` are in the same bundle).
 */
const MCP_RULES = [
  { id: 'no-repo-deletion', action: 'hide', match: { name: `${BENCH_MCP_SERVER}/delete_repo` } },
  {
    id: 'issues-in-acme-only',
    action: 'deny',
    match: { name: `${BENCH_MCP_SERVER}/create_issue` },
    when: "!args.repo.startsWith('acme/')",
  },
];

/**
 * Toolgate as `pnpm bench gateway` runs it (API on embedded PostgreSQL at nice 19, the gateway's
 * production build, receipts on), provisioned before the gateway starts with the McpServer
 * `bench` (the demo MCP server at `mcpUrl`), a policy for its tools and an agent token: calls go
 * to `<gateway>/mcp/bench` as an agent proven by its token.
 */
export async function startToolgateForMcp(
  processes: Processes,
  options: {
    mcpUrl: string;
    dataDir: string;
    progress: (line: string) => void;
    /** Extra gateway environment and Node flags (bench/mcp/profile.ts: RECEIPTS, --cpu-prof). */
    gatewayEnv?: Record<string, string>;
    gatewayNodeArgs?: string[];
  },
): Promise<{ stack: ToolgateStack; target: McpTarget; baseline?: McpTarget }> {
  let agentToken: string | undefined;
  const stack = await startToolgate(processes, {
    // The gateway's LLM upstream, required by its environment: never called by this bench.
    mockUrl: new URL(options.mcpUrl).origin,
    dataDir: options.dataDir,
    progress: options.progress,
    apiNiceness: 19,
    ...(options.gatewayEnv ? { gatewayEnv: options.gatewayEnv } : {}),
    ...(options.gatewayNodeArgs ? { gatewayNodeArgs: options.gatewayNodeArgs } : {}),
    beforeGateway: async ({ apiUrl, operatorToken }) => {
      options.progress(`provisioning: McpServer ${BENCH_MCP_SERVER}, its policy, an agent token`);
      await createThroughCollection(apiUrl, operatorToken, 'mcpservers', {
        apiVersion: API_VERSION,
        kind: 'McpServer',
        metadata: { name: BENCH_MCP_SERVER },
        spec: { url: options.mcpUrl, drift: 'warn' },
      });
      const operator = createClient({ baseUrl: apiUrl, token: operatorToken });
      await operator.call('mediationPolicies.create', {
        body: {
          apiVersion: API_VERSION,
          kind: 'MediationPolicy',
          metadata: { name: 'bench-mcp' },
          spec: { rules: MCP_RULES as never },
        },
      });
      await operator.call('identities.create', {
        body: {
          apiVersion: API_VERSION,
          kind: 'Identity',
          metadata: { name: AGENT },
          spec: { type: 'service', roles: ['agent'] },
        },
      });
      ({ token: agentToken } = await operator.call('tokens.issueToken', {
        params: { name: AGENT },
        body: { description: 'pnpm bench mcp' },
      }));
    },
  });
  const baselineDist = process.env.BENCH_MCP_BASELINE;
  let baseline: McpTarget | undefined;
  if (baselineDist) {
    // Its own gateway identity and receipt chain, the same rules (bench/mcp/README.md).
    options.progress(`starting the baseline gateway build ${baselineDist}`);
    const { token } = await provision(stack, 'bench-baseline', TEN_RULES);
    const variant = await stack.variant(
      BASELINE,
      { GATEWAY_NAME: 'bench-baseline', API_TOKEN: token },
      baselineDist,
    );
    baseline = {
      name: BASELINE,
      url: `${variant.url}/mcp/${BENCH_MCP_SERVER}`,
      headers: { authorization: `Bearer ${agentToken}` },
      pgids: [variant.gateway.pid],
      afterBlock: () => drainSpool(variant.url),
    };
  }
  return {
    stack,
    ...(baseline ? { baseline } : {}),
    target: {
      name: TOOLGATE,
      url: `${stack.url}/mcp/${BENCH_MCP_SERVER}`,
      headers: { authorization: `Bearer ${agentToken}` },
      pgids: [stack.gateway.pid],
      afterBlock: () => drainSpool(stack.url),
    },
  };
}

/**
 * Creates a resource through its REST collection (the McpServer's fixed URL, docs/mcp.md), as
 * the typed client would; any answer but 201 throws with the API's message.
 */
async function createThroughCollection(
  apiUrl: string,
  token: string,
  collection: string,
  body: { apiVersion: string; kind: string; metadata: { name: string }; spec: unknown },
): Promise<void> {
  const response = await fetch(`${apiUrl}${API_PREFIX}/${collection}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) {
    throw new Error(
      `creating ${body.kind}/${body.metadata.name}: HTTP ${response.status} ${text.slice(0, 300)}`,
    );
  }
}
