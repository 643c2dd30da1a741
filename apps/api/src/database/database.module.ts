import { Global, Module } from '@nestjs/common';
import { ChangeNotifier } from './change-notifier.ts';
import { DatabaseHealth } from './database-health.ts';
import { PrismaService } from './prisma.service.ts';

/** PostgreSQL access for every feature module: Prisma for queries, LISTEN/NOTIFY for changes. */
@Global()
@Module({
  providers: [PrismaService, ChangeNotifier, DatabaseHealth],
  exports: [PrismaService, ChangeNotifier, DatabaseHealth],
})
export class DatabaseModule {}
