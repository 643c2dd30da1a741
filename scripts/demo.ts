import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@toolgate/contract';
import { runDemoAgent } from './stack/demo-agent.ts';
import { MCP_DEMO_RECEIPTS, McpDemoError, runMcpDemo } from './stack/demo-mcp.ts';
import { parseStackEnv } from './stack/env.ts';
import { STACK_GATEWAY } from './stack/stack.ts';
import { readStackState, stackStatePath } from './stack/stack-state.ts';

/**
 * `pnpm demo` (with `pnpm start` running): a scripted agent through the gateway with the
 * official OpenAI and Anthropic SDKs, then the same agent through the gateway's MCP route with the
 * official MCP SDK, and waits until the API holds every receipt.
 */
const env = parseStackEnv(process.env);
const state = await readStackState(env.TOOLGATE_DATA_DIR);
if (!state.urls || !state.agentToken || !state.operatorToken) {
  process.stderr.write(
    `No running stack found (${stackStatePath(env.TOOLGATE_DATA_DIR)}). Start it first: pnpm start\n`,
  );
  process.exit(1);
}
const { urls } = state;
const ready = await fetch(`${urls.gateway}/readyz`).then(
  (r) => r.ok,
  () => false,
);
if (!ready) {
  process.stderr.write(`The gateway at ${urls.gateway} is not answering. Is pnpm start running?\n`);
  process.exit(1);
}

const out = (line = '') => process.stdout.write(`${line}\n`);
out(`Agent "demo-agent" → gateway ${urls.gateway} ("${STACK_GATEWAY.name}") → demo upstream\n`);
const steps = await runDemoAgent({
  gatewayUrl: urls.gateway,
  mockUrl: urls.mock,
  agentToken: state.agentToken,
});
for (const step of steps) {
  out(`• ${step.title}  [${step.sdk} SDK]`);
  out(`    agent offered:  ${step.offered.join(', ')}`);
  out(`    provider saw:   ${step.providerSaw.join(', ')}`);
  out(
    `    agent got:      ${step.agentGot.length > 0 ? step.agentGot.join(', ') : '(no tool call: blocked)'}`,
  );
  out(`    receipt:        ${step.receiptId ?? '(none)'}`);
}

out('\nWaiting for the receipts to reach the API…');
const operator = createClient({ baseUrl: urls.api, token: state.operatorToken });
const wanted = new Set(steps.map((s) => s.receiptId).filter((id): id is string => !!id));
const deadline = Date.now() + 30_000;
for (;;) {
  const page = await operator.call('receipts.list', {
    query: { gateway: STACK_GATEWAY.name, limit: 100 },
  });
  for (const item of page.items) wanted.delete(item.id);
  if (wanted.size === 0) break;
  if (Date.now() > deadline) {
    out(`${wanted.size} receipt(s) not there yet; the gateway keeps them spooled and retries.`);
    process.exit(1);
  }
  await sleep(250);
}
out(`All ${steps.length} receipts are stored. See them in the console: ${urls.console}/receipts`);

out(`\nAgent "demo-agent" → gateway ${urls.gateway}/mcp/demo → the demo MCP server (MCP SDK)\n`);
const mcpSince = new Date(Date.now() - 1000).toISOString();
let mcp: Awaited<ReturnType<typeof runMcpDemo>>;
try {
  mcp = await runMcpDemo({ gatewayUrl: urls.gateway, agentToken: state.agentToken });
} catch (error) {
  if (!(error instanceof McpDemoError)) throw error;
  out(`The MCP part did not go as the demo seed says: ${error.message}`);
  process.exit(1);
}
out(`• tools/list: the agent is offered ${mcp.listed.join(', ')}`);
out('    (delete_repo is hidden by the rule no-repo-deletion of the policy demo-mcp)');
for (const step of mcp.steps) {
  out(`• ${step.title}`);
  out(`    agent got (${step.outcome}): ${step.detail.slice(0, 200)}`);
}
out(
  `\nWaiting for the ${MCP_DEMO_RECEIPTS} MCP receipts (the list that hid a tool, and every call)…`,
);
const mcpDeadline = Date.now() + 30_000;
for (;;) {
  const page = await operator.call('receipts.list', {
    query: { gateway: STACK_GATEWAY.name, since: mcpSince, limit: 100 },
  });
  // 'mcp' joins the Surface enum with the gateway's MCP route; compared as text until then.
  const count = page.items.filter((item) => (item.surface as string) === 'mcp').length;
  if (count >= MCP_DEMO_RECEIPTS) break;
  if (Date.now() > mcpDeadline) {
    out(`${count} of ${MCP_DEMO_RECEIPTS} MCP receipts there after 30 s.`);
    process.exit(1);
  }
  await sleep(250);
}
out(`All MCP receipts are stored (surface mcp): ${urls.console}/receipts`);
out(`The withheld issue waits for an operator: ${urls.console}/approvals`);
