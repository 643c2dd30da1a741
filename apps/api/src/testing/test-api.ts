import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Tracer } from '@opentelemetry/api';
import { type ApiClient, createClient, type Status } from '@toolgate/contract';
import type { Role } from '@toolgate/core';
import { createTestDatabase, type TestDatabase } from '@toolgate/db/testing';
import pino, { type Logger } from 'pino';
import { inject } from 'vitest';
import { createApp } from '../create-app.ts';
import { ApiEnv } from '../env.ts';
import { BootstrapOperator } from '../identities/bootstrap-operator.ts';
import { TokensService } from '../identities/tokens.service.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { SeedService } from '../resources/seed.service.ts';

export interface TestApi {
  url: string;
  database: TestDatabase;
  app: NestFastifyApplication;
  /** Typed client holding the first operator's token. */
  operator: ApiClient;
  operatorToken: string;
  /** An identity with the given roles and a token for it. */
  identity(
    name: string,
    roles: Role[],
    type?: 'human' | 'service',
  ): Promise<{ token: string; client: ApiClient }>;
  /** Raw HTTP against the API (for malformed input, headers, status codes). */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  close(): Promise<void>;
}

const SYSTEM = { name: 'test:setup', roles: ['operator'] as const };

/**
 * A real API on a fresh database of the run's PostgreSQL, listening on a random port, with the
 * seed applied and an operator token. One per test file (`beforeAll` / `afterAll`).
 * `options.log`: the logger the app writes to (silent by default). `options.adminUrl`: another
 * PostgreSQL server to create the database on (one the test stops and starts itself).
 * `options.tracer`: a span per request (tracing on), as `main.ts` hands it.
 */
export async function startTestApi(
  envOverrides: Record<string, string> = {},
  options: { log?: Logger; adminUrl?: string; tracer?: Tracer } = {},
): Promise<TestApi> {
  const database = await createTestDatabase(options.adminUrl ?? inject('databaseAdminUrl'));
  const env = ApiEnv.parse({ LOG_LEVEL: 'silent', PORT: '0', ...envOverrides });
  const log = options.log ?? pino({ level: 'silent' });
  const app = await createApp({
    databaseUrl: database.url,
    env,
    log,
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  await app.get(SeedService).ensureSeeded();
  const operatorToken = (await app.get(BootstrapOperator).ensureOperator()) as string;
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  const store = app.get(ResourceStore);
  const tokens = app.get(TokensService);
  return {
    url,
    database,
    app,
    operatorToken,
    operator: createClient({ baseUrl: url, token: operatorToken }),
    async identity(name, roles, type = roles.includes('gateway') ? 'service' : 'human') {
      await store.create('Identity', { metadata: { name }, spec: { type, roles } }, SYSTEM);
      const { token } = await tokens.issue(name, {}, SYSTEM);
      return { token, client: createClient({ baseUrl: url, token }) };
    },
    fetch(path, init = {}) {
      const { token, headers, ...rest } = init;
      return fetch(url + path, {
        ...rest,
        headers: {
          ...(rest.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(headers as Record<string, string>),
        },
      });
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/** A second API process-alike on the same database (scale-out: several replicas, one PostgreSQL). */
export async function startReplica(api: TestApi): Promise<{ url: string; close(): Promise<void> }> {
  const env = ApiEnv.parse({ LOG_LEVEL: 'silent', PORT: '0' });
  const app = await createApp({
    databaseUrl: api.database.url,
    env,
    log: pino({ level: 'silent' }),
  });
  await app.listen(0, '127.0.0.1');
  return { url: await app.getUrl(), close: () => app.close() };
}

/** The Kubernetes Status of an error response. */
export async function readStatus(response: Response): Promise<Status> {
  return (await response.json()) as Status;
}
