import { envHelp, parseEnv } from './env.ts';
import { createMockMcp } from './server.ts';

/** `pnpm --filter @toolgate/mock-mcp start` (`--help` lists the environment). */
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(envHelp());
  process.exit(0);
}
const env = parseEnv(process.env);
const mcp = await createMockMcp({
  host: env.HOST,
  port: env.PORT,
  maxSessions: env.MOCK_MCP_MAX_SESSIONS,
  sessionIdleMs: env.MOCK_MCP_SESSION_IDLE_MS,
  logLevel: env.LOG_LEVEL,
  ...(env.MOCK_MCP_REQUIRE_KEY ? { requireKey: env.MOCK_MCP_REQUIRE_KEY } : {}),
});
console.log(`demo MCP server listening on ${mcp.url} (Streamable HTTP)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void mcp.close().then(() => process.exit(0));
  });
}
