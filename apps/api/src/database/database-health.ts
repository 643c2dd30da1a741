import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service.ts';

@Injectable()
export class DatabaseHealth {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** `ok`, or why PostgreSQL does not answer. */
  async check(): Promise<string> {
    try {
      await this.prisma.client.$queryRaw`SELECT 1`;
      return 'ok';
    } catch (error) {
      return `unavailable: ${(error as Error).message.split('\n')[0]}`;
    }
  }
}
