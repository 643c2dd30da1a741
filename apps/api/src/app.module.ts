import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { AuditModule } from './audit/audit.module.ts';
import { AuthModule } from './auth/auth.module.ts';
import { CapabilityContractsModule } from './capability-contracts/capability-contracts.module.ts';
import { DatabaseModule } from './database/database.module.ts';
import { API_ENV, DATABASE_URL, LOGGER } from './database/database.tokens.ts';
import type { ApiEnv } from './env.ts';
import { GatewaysModule } from './gateways/gateways.module.ts';
import { HostedToolsModule } from './hosted-tools/hosted-tools.module.ts';
import { IdentitiesModule } from './identities/identities.module.ts';
import { McpServersModule } from './mcp-servers/mcp-servers.module.ts';
import { MediationPoliciesModule } from './mediation-policies/mediation-policies.module.ts';
import { OverviewModule } from './overview/overview.module.ts';
import { ProviderProfilesModule } from './provider-profiles/provider-profiles.module.ts';
import { ReceiptsModule } from './receipts/receipts.module.ts';
import { ResourcesModule } from './resources/resources.module.ts';
import { SystemModule } from './system/system.module.ts';
import { ToolCallApprovalsModule } from './tool-call-approvals/tool-call-approvals.module.ts';

export interface AppConfig {
  databaseUrl: string;
  env: ApiEnv;
  log: Logger;
  /** A span per request when tracing is on (common/request-spans.ts); absent: none. */
  tracer?: Tracer;
}

/** Configuration every module may inject: the database URL, the parsed Env, the logger. */
@Global()
@Module({})
class ConfigModule {}

@Module({})
class AppModule {}

/** The application module for one configuration. */
export function appModule(config: AppConfig): DynamicModule {
  const configProviders = [
    { provide: DATABASE_URL, useValue: config.databaseUrl },
    { provide: API_ENV, useValue: config.env },
    { provide: LOGGER, useValue: config.log },
  ];
  return {
    module: AppModule,
    imports: [
      { module: ConfigModule, providers: configProviders, exports: configProviders },
      DatabaseModule,
      ResourcesModule,
      AuthModule,
      AuditModule,
      MediationPoliciesModule,
      IdentitiesModule,
      CapabilityContractsModule,
      ProviderProfilesModule,
      GatewaysModule,
      ReceiptsModule,
      OverviewModule,
      ToolCallApprovalsModule,
      McpServersModule,
      HostedToolsModule,
      SystemModule,
    ],
  };
}
