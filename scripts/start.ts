import { type StackService, serviceLabel, shouldColour } from './stack/colour.ts';
import { parseStackEnv } from './stack/env.ts';
import { createLogFormatter } from './stack/log-format.ts';
import { STACK_GATEWAY, startStack } from './stack/stack.ts';

/**
 * `pnpm start`: the whole of Toolgate on this machine — demo upstream, API on embedded
 * PostgreSQL (data under `.data/`, reused next time), console, demo seed and one gateway — as
 * separate processes with prefixed logs. Ctrl-C stops everything cleanly.
 */
const env = parseStackEnv(process.env);
// Escape codes only for a terminal: `pnpm start > stack.log` gets plain text.
const colour = shouldColour(process.stdout, env);

function print(service: StackService, line: string) {
  process.stdout.write(`${serviceLabel(service, colour)}${line}\n`);
}

const formatters = new Map<string, (line: string) => string | undefined>();
function printServiceLine(service: string, line: string) {
  let format = formatters.get(service);
  if (!format) {
    format = createLogFormatter();
    formatters.set(service, format);
  }
  const text = format(line);
  if (text !== undefined) print(service as StackService, text);
}

let stopping = false;
let stop: (() => Promise<void>) | undefined;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  print('start', 'stopping every service…');
  await stop?.();
  print('start', 'stopped');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

print('start', `Starting Toolgate (data in ${env.TOOLGATE_DATA_DIR}/; Ctrl-C stops everything)`);
try {
  const stack = await startStack({
    dataDir: env.TOOLGATE_DATA_DIR,
    host: env.TOOLGATE_HOST,
    ports: {
      api: env.TOOLGATE_API_PORT,
      gateway: env.TOOLGATE_GATEWAY_PORT,
      console: env.TOOLGATE_CONSOLE_PORT,
      mock: env.TOOLGATE_MOCK_PORT,
      mcp: env.TOOLGATE_MCP_PORT,
    },
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    ...(env.TOOLGATE_TOKEN ? { operatorToken: env.TOOLGATE_TOKEN } : {}),
    handleSignals: false,
    onLine: printServiceLine,
    progress: (line) => print('start', line),
  });
  stop = stack.stop;
  if (stopping) await stack.stop();
  for (const [name, service] of Object.entries(stack.services)) {
    void service.exited.then(() => {
      if (stopping) return;
      print('start', `${name} exited; stopping everything`);
      void shutdown(1);
    });
  }
  const { urls } = stack;
  process.stdout.write(
    [
      '',
      '  Toolgate is running.',
      '',
      `  Console        ${urls.console}   (sign in with the operator token below)`,
      `  Gateway        ${urls.gateway}/v1   (OpenAI baseURL; Anthropic baseURL ${urls.gateway})`,
      `                 runs as "${STACK_GATEWAY.name}"; the demo upstream answers at ${urls.mock}`,
      `  MCP            ${urls.gateway}/mcp/demo   (the demo MCP server ${urls.mcp}, through the gateway)`,
      `  API            ${urls.api}   (reference: ${urls.api}/docs)`,
      '',
      `  Operator token ${stack.operatorToken}`,
      `                 (kept in ${env.TOOLGATE_DATA_DIR}/stack/state.json, mode 0600)`,
      '',
      '  Next: `pnpm demo` sends an agent through the gateway (LLM APIs and MCP); receipts show up in the console.',
      '',
    ].join('\n'),
  );
} catch (error) {
  print('start', `failed: ${(error as Error).message}`);
  await shutdown(1);
}
