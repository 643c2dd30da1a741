import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ensureReceiptPartitions, type ReceiptPartitionsReport } from '@toolgate/db';
import type { Logger } from 'pino';
import { DATABASE_URL, LOGGER } from '../database/database.tokens.ts';

/** Often enough that a month's partition exists weeks before its first receipt. */
const EVERY_MS = 6 * 60 * 60_000;

/**
 * Keeps `receipts`' monthly partitions ahead of time (packages/db/src/receipt-partitions.ts):
 * once before the API serves (so a fresh database has them), then every six hours. A failed run
 * is logged and retried at the next; meanwhile receipts land in the default partition, and the
 * next successful run moves them into their month.
 */
@Injectable()
export class ReceiptPartitionsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.run();
    this.timer = setInterval(() => void this.run(), EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One maintenance run; undefined when it failed (logged). */
  async run(): Promise<ReceiptPartitionsReport | undefined> {
    try {
      const report = await ensureReceiptPartitions(this.databaseUrl);
      if (report.created.length > 0) {
        this.log.info(
          { created: report.created, moved: report.moved },
          `receipt partitions created: ${report.created.join(', ')}${report.moved ? ` (${report.moved} receipts moved out of the default partition)` : ''}`,
        );
      }
      return report;
    } catch (error) {
      this.log.error({ err: error }, 'receipt partition maintenance failed; retrying later');
      return undefined;
    }
  }
}
