import { z } from 'zod';

/** The mock provider's configuration: parsed once at boot; nothing else reads process.env. */
export const MockProviderEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** Added to every answer; a request's own `latencyMs` replaces it. */
  MOCK_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  /** When set, every request must carry exactly this key (Bearer or x-api-key); 401 otherwise. */
  MOCK_REQUIRE_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type MockProviderEnv = z.infer<typeof MockProviderEnv>;

/** Parses the environment or throws a readable list of what is wrong. */
export function parseEnv(env: NodeJS.ProcessEnv): MockProviderEnv {
  const result = MockProviderEnv.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid environment:\n${lines.join('\n')}`);
}
