import { Global, Module } from '@nestjs/common';
import { ShutdownSignal } from '../common/shutdown-signal.ts';
import { ChangeNotifier } from './change-notifier.ts';
import { DatabaseHealth } from './database-health.ts';
import { PrismaService } from './prisma.service.ts';

/**
 * PostgreSQL access for every feature module: Prisma for queries, LISTEN/NOTIFY for changes,
 * and the shutdown signal that ends long-lived responses waiting on them.
 */
@Global()
@Module({
  providers: [PrismaService, ChangeNotifier, DatabaseHealth, ShutdownSignal],
  exports: [PrismaService, ChangeNotifier, DatabaseHealth, ShutdownSignal],
})
export class DatabaseModule {}
