import { type ConsoleServer, startConsoleServer } from '@toolgate/console/server';
import { startTestApi, type TestApi } from '../../../apps/api/src/testing/test-api.ts';

export interface ConsoleStack {
  api: TestApi;
  console: ConsoleServer;
  close(): Promise<void>;
}

/**
 * A real API on its own database of the run's PostgreSQL (seeded, with an operator token) and
 * the production console build served in front of it, proxying `/apis` to it like in production.
 */
export async function startConsoleStack(): Promise<ConsoleStack> {
  const api = await startTestApi();
  const server = await startConsoleServer({ apiUrl: api.url, port: 0 });
  return {
    api,
    console: server,
    async close() {
      await server.close();
      await api.close();
    },
  };
}
