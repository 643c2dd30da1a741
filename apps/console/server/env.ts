import { z } from 'zod';

/** The console server's configuration: parsed once at start; nothing else reads process.env. */
export const ConsoleEnv = z.object({
  CONSOLE_HOST: z.string().min(1).default('127.0.0.1'),
  CONSOLE_PORT: z.coerce.number().int().min(0).max(65535).default(5173),
  /** The control-plane API the console proxies `/apis`, `/healthz`, `/readyz` and `/docs` to. */
  API_URL: z.url().default('http://127.0.0.1:8080'),
});
export type ConsoleEnv = z.infer<typeof ConsoleEnv>;

/** Parses the environment or throws a readable list of what is wrong. */
export function parseConsoleEnv(env: NodeJS.ProcessEnv): ConsoleEnv {
  const result = ConsoleEnv.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid environment:\n${lines.join('\n')}`);
}
