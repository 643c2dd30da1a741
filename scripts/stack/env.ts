import { z } from 'zod';

const Port = z.coerce.number().int().min(0).max(65535);

/**
 * `pnpm start` / `pnpm demo`: parsed once; nothing else in scripts/ reads process.env. Each
 * service still parses its own Env — this only picks the ports and the data directory.
 */
export const StackEnv = z.object({
  /** Everything the stack keeps between runs: PostgreSQL, the gateway's spool, its tokens. */
  TOOLGATE_DATA_DIR: z.string().default('.data'),
  /** An external PostgreSQL instead of the embedded one. */
  DATABASE_URL: z.string().optional(),
  /** Only needed when the API's data predates `<data>/stack/state.json` (which keeps it). */
  TOOLGATE_TOKEN: z.string().optional(),
  TOOLGATE_HOST: z.string().default('127.0.0.1'),
  TOOLGATE_API_PORT: Port.default(8080),
  TOOLGATE_GATEWAY_PORT: Port.default(8081),
  TOOLGATE_CONSOLE_PORT: Port.default(5173),
  TOOLGATE_MOCK_PORT: Port.default(8090),
  /** The demo MCP server (apps/mock-mcp), registered by the demo seed as the McpServer `demo`. */
  TOOLGATE_MCP_PORT: Port.default(8091),
  /** Colour of the service labels (stack/colour.ts): only on a terminal unless these say otherwise. */
  FORCE_COLOR: z.string().optional(),
  NO_COLOR: z.string().optional(),
  TERM: z.string().optional(),
});
export type StackEnv = z.infer<typeof StackEnv>;

export function parseStackEnv(env: NodeJS.ProcessEnv): StackEnv {
  const result = StackEnv.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid environment:\n${lines.join('\n')}`);
}
