import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { API_CONTENT_SECURITY_POLICY, securityHeaders } from '@toolgate/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type AppConfig, appModule } from './app.module.ts';
import { recordRoutes } from './common/route-registry.ts';
import { SchemaValidationPipe } from './common/schema-validation.pipe.ts';
import { StatusFilter, toStatus } from './common/status.filter.ts';

/** Shared with the console (packages/contract); `no-store`: answers may carry tokens. */
const SECURITY_HEADERS = securityHeaders({
  contentSecurityPolicy: API_CONTENT_SECURITY_POLICY,
  noStore: true,
});

function setSecurityHeaders(response: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
}

/** The API application, initialised but not listening (tests listen on a random port). */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.env.BODY_LIMIT,
    loggerInstance: config.log,
    requestTimeout: 120_000,
    // On close, long-lived responses have already ended (ShutdownSignal); drop the keep-alive
    // sockets clients leave open rather than wait for them.
    forceCloseConnections: true,
    // Fastify's default (100) is shorter than a valid object name (253).
    routerOptions: { maxParamLength: 1024 },
    // A malformed or overlong URL fails before routing: answer with a Status all the same.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      setSecurityHeaders(reply.raw);
      const status = toStatus(error);
      void reply.status(status.code).header('content-type', 'application/json').send(status);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(appModule(config), adapter, {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  recordRoutes(app.getHttpAdapter().getInstance());
  app.useGlobalPipes(new SchemaValidationPipe());
  app.useGlobalFilters(new StatusFilter(config.log));
  // On the raw response, so hijacked replies (watch streams) carry them too.
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (_request, reply) => setSecurityHeaders(reply.raw));
  app.enableShutdownHooks();
  await app.init();
  return app;
}
