import { startConsoleServer } from './console-server.ts';
import { parseConsoleEnv } from './env.ts';

/** `pnpm --filter @toolgate/console start`: the production console on CONSOLE_PORT. */
const env = (() => {
  try {
    return parseConsoleEnv(process.env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
})();
const server = await startConsoleServer({
  apiUrl: env.API_URL,
  port: env.CONSOLE_PORT,
  host: env.CONSOLE_HOST,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`\nToolgate console on ${server.url} (API: ${env.API_URL})\n`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await server.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
