import { type ApiClient, ApiError } from '@toolgate/contract';
import type { JsonObject } from '@toolgate/core';
import type { Logger } from 'pino';
import { Backoff } from '../shipping/backoff.ts';

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
  private readonly pending = new Map<string, Pending>();
  private readonly reported = new Map<string, string>();
  private readonly backoff = new Backoff();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: ObservationReporterOptions) {}

  /** Notes the list a gateway session fetched; sends it unless the API has it already. */
  observe(server: string, fingerprint: string, definitions: ReadonlyArray<JsonObject>): void {
    if (this.stopped || this.reported.get(server) === fingerprint) return;
    if (this.pending.get(server)?.fingerprint === fingerprint) return;
    this.pending.set(server, { fingerprint, definitions });
    if (this.timer === undefined) this.kick();
  }

  /** Sends everything noted now and waits for it (tests, shutdown). */
  async flush(): Promise<void> {
    this.kick();
    await this.running;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private kick(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      const next = this.pending.entries().next();
      if (next.done) return;
      const [server, list] = next.value;
      try {
        await this.options.client.call('mcpServers.observe', {
          params: { name: server },
          body: { tools: list.definitions.map((definition) => ({ definition })) },
        });
        this.backoff.reset();
        this.reported.set(server, list.fingerprint);
        this.options.onReported?.(server);
      } catch (error) {
        const status = error instanceof ApiError ? error.httpStatus : undefined;
        if (status === undefined || status >= 500 || status === 408 || status === 429) {
          const wait = this.backoff.next();
          this.options.log.warn(
            { err: error, server, retryInMs: wait },
            'MCP tool observation not delivered',
          );
          this.timer = setTimeout(() => this.kick(), wait);
          this.timer.unref();
          return;
        }
        // Refused for good (an McpServer the API does not know, a list it will not take): the
        // next different list is reported; this one is not retried.
        this.options.log.error({ err: error, server }, 'MCP tool observation refused by the API');
        this.reported.set(server, list.fingerprint);
      }
      // Only if no newer list arrived while this one was in flight.
      if (this.pending.get(server) === list) this.pending.delete(server);
    }
  }
}
