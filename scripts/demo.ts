import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@toolgate/contract';
import { runDemoAgent } from './stack/demo-agent.ts';
import { parseStackEnv } from './stack/env.ts';
import { STACK_GATEWAY } from './stack/stack.ts';
import { readStackState, stackStatePath } from './stack/stack-state.ts';

/**
 * `pnpm demo` (with `pnpm start` running): a scripted agent through the gateway with the
 * official OpenAI and Anthropic SDKs, then waits until the API holds every receipt.
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
