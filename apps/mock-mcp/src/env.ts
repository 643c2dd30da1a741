import { z } from 'zod';

const Integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The demo MCP server's configuration: parsed once at boot; nothing else reads process.env. */
export const MockMcpEnv = z.object({
  HOST: z.string().default('127.0.0.1').describe('interface to listen on'),
  PORT: Integer(0, 65535).default(8091).describe('port to listen on (0: any free port)'),
  MOCK_MCP_REQUIRE_KEY: z
    .string()
    .optional()
    .describe('when set (non-empty), /mcp requires exactly `Authorization: Bearer <this>`'),
  MOCK_MCP_MAX_SESSIONS: Integer(1, 100_000)
    .default(1000)
    .describe('open MCP sessions at most; a new one beyond it is refused (503)'),
  MOCK_MCP_SESSION_IDLE_MS: Integer(1000, 86_400_000)
    .default(600_000)
    .describe('a session without a request for this long is closed'),
  LOG_LEVEL: z
    .enum(['info', 'warn', 'silent'])
    .default('info')
    .describe('info: sessions and tool calls (names only, never arguments); warn: problems only'),
});
export type MockMcpEnv = z.infer<typeof MockMcpEnv>;

/** Parses the environment or throws a readable list of what is wrong. */
export function parseEnv(env: NodeJS.ProcessEnv): MockMcpEnv {
  const result = MockMcpEnv.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join('\n')}`);
  }
  // An empty key in a compose file or a shell means "none", not "the empty string".
  if (result.data.MOCK_MCP_REQUIRE_KEY === '') delete result.data.MOCK_MCP_REQUIRE_KEY;
  return result.data;
}

/** `--help`: every variable with its default and meaning, from the schema itself. */
export function envHelp(): string {
  const schema = z.toJSONSchema(MockMcpEnv, { io: 'input' }) as {
    properties: Record<string, { default?: unknown; description?: string }>;
  };
  const rows = Object.entries(schema.properties).map(([name, p]) => {
    const fallback = p.default === undefined ? '—' : String(p.default);
    return `  ${name.padEnd(26)}${fallback.padEnd(11)}${p.description ?? ''}`;
  });
  return [
    'The Toolgate demo MCP server (Streamable HTTP at /mcp). Configured by the environment:',
    '',
    `  ${'variable'.padEnd(26)}${'default'.padEnd(11)}meaning`,
    ...rows,
    '',
  ].join('\n');
}
