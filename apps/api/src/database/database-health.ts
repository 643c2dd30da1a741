import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from './database.tokens.ts';
import { PrismaService } from './prisma.service.ts';

@Injectable()
export class DatabaseHealth {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /**
   * `ok`, or `unavailable`. The probe is anonymous: the driver's message (host, port, source
   * paths) goes to the log, never into the answer.
   */
  async check(): Promise<string> {
    try {
      await this.prisma.client.$queryRaw`SELECT 1`;
      return 'ok';
    } catch (error) {
      this.log.warn({ err: error }, 'readiness: PostgreSQL does not answer');
      return 'unavailable';
    }
  }
}
