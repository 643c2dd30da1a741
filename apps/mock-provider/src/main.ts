import { parseEnv } from './env.ts';
import { createMockProvider } from './server.ts';

/** `pnpm --filter @toolgate/mock-provider start`: listens and prints the base URL. */
const env = parseEnv(process.env);
const mock = await createMockProvider({
  host: env.HOST,
  port: env.PORT,
  latencyMs: env.MOCK_LATENCY_MS,
  requireKey: env.MOCK_REQUIRE_KEY,
  logger: { level: env.LOG_LEVEL },
});
console.log(`mock provider listening on ${mock.url}`);
console.log(`  OpenAI baseURL:    ${mock.url}/v1`);
console.log(`  Anthropic baseURL: ${mock.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void mock.close().then(() => process.exit(0));
  });
}
