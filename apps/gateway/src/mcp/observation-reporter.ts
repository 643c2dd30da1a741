import type { ApiClient } from '@toolgate/contract';
import type { JsonObject } from '@toolgate/core';
import type { Logger } from 'pino';
import { BackgroundSends } from '../shipping/background-sends.ts';

export interface ObservationReporterOptions {
  client: ApiClient;
  log: Pick<Logger, 'warn' | 'error' | 'debug'>;
  /** Called with each report the API answered (tests; the bundle brings the new pins). */
  onReported?: (server: string) => void;
}

interface Pending {
  fingerprint: string;
  definitions: ReadonlyArray<JsonObject>;
}

/**
 * Reports each MCP server's complete tool list to the API (`POST …/mcpservers/{name}/observations`),
 * which pins new tools and records drift. Off the request path: `observe` only notes the list;
 * a background loop sends it, retrying with backoff while the API is unreachable. Memory is
 * bounded by the number of servers: per server only the newest unreported list is kept, and a
 * list equal to the last one the API accepted is not sent again.
 */
export class ObservationReporter {
  private readonly reported = new Map<string, string>();
  private readonly sends: BackgroundSends<Pending>;

  constructor(options: ObservationReporterOptions) {
    this.sends = new BackgroundSends<Pending>({
      send: async (server, list) => {
        await options.client.call('mcpServers.observe', {
          params: { name: server },
          body: { tools: list.definitions.map((definition) => ({ definition })) },
        });
      },
      onSent: (server, list) => {
        this.reported.set(server, list.fingerprint);
        options.onReported?.(server);
      },
      onRefused: (server, list, error) => {
        // Refused for good (an McpServer the API does not know, a list it will not take): the
        // next different list is reported; this one is not retried.
        options.log.error({ err: error, server }, 'MCP tool observation refused by the API');
        this.reported.set(server, list.fingerprint);
      },
      onRetry: (server, error, retryInMs) =>
        options.log.warn({ err: error, server, retryInMs }, 'MCP tool observation not delivered'),
    });
  }

  /** Notes the list a gateway session fetched; sends it unless the API has it already. */
  observe(server: string, fingerprint: string, definitions: ReadonlyArray<JsonObject>): void {
    if (this.sends.isStopped || this.reported.get(server) === fingerprint) return;
    if (this.sends.get(server)?.fingerprint === fingerprint) return;
    this.sends.put(server, { fingerprint, definitions });
  }

  /** Sends everything noted now and waits for it (tests, shutdown). */
  flush(): Promise<void> {
    return this.sends.flush();
  }

  stop(): void {
    this.sends.stop();
  }
}
