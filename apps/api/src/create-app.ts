import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { API_CONTENT_SECURITY_POLICY, securityHeaders } from '@toolgate/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppConfig, appModule } from './app.module.ts';
import { AccessControl } from './auth/access-control.ts';
import { admitBeforeBody } from './auth/access-hook.ts';
import { acceptOnlyJsonBodies } from './common/json-body.ts';
import { traceRequests } from './common/request-spans.ts';
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

const IDLE_SWEEP_MS = 50;

/**
 * `forceCloseConnections: 'idle'` closes the connections idle when closing starts. One whose
 * request finishes later (a request in flight, a long-poll that shutdown just ended) would keep
 * the server open for the whole keep-alive timeout, and Node never counts a connection that has
 * not sent a byte yet as idle: close both kinds as they come.
 */
function closeConnectionsAsTheyIdle(fastify: FastifyInstance): void {
  const connections = new Set<Socket>();
  fastify.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  fastify.addHook('preClose', (done) => {
    const sweep = setInterval(() => {
      fastify.server.closeIdleConnections();
      for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
    }, IDLE_SWEEP_MS);
    fastify.server.once('close', () => clearInterval(sweep));
    done();
  });
}

/** The API application, initialised but not listening (tests listen on a random port). */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.env.BODY_LIMIT,
    loggerInstance: config.log,
    requestTimeout: 120_000,
    // On close, long-lived responses have already ended (ShutdownSignal); requests in flight
    // finish (shutdown.ts bounds that), keep-alive sockets are closed as soon as they are idle.
    forceCloseConnections: 'idle',
    // Fastify's default (100) is shorter than a valid object name (253). A trailing slash names
    // the same route (`/docs/` is `/docs`), with the same access rule: links and habits add one.
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
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
    // Nest's parsers (JSON, urlencoded) would decode leniently: acceptOnlyJsonBodies replaces them.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // First of the onRequest hooks: the access check's refusals get their span too.
  if (config.tracer) traceRequests(fastify, config.tracer);
  recordRoutes(fastify);
  acceptOnlyJsonBodies(fastify, config.env.BODY_LIMIT);
  app.useGlobalPipes(new SchemaValidationPipe());
  app.useGlobalFilters(new StatusFilter(config.log));
  // On the raw response, so hijacked replies (watch streams) carry them too.
  fastify.addHook('onRequest', async (_request, reply) => setSecurityHeaders(reply.raw));
  admitBeforeBody(fastify, app.get(AccessControl));
  closeConnectionsAsTheyIdle(fastify);
  await app.init();
  return app;
}
