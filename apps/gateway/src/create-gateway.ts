import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { redactSecrets } from '@toolgate/core';
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { type McpProxy, mcpServerOfPath } from './mcp/mcp-proxy.ts';
import { proxySurface, sendJson, surfaceOfPath } from './proxy/agent-http.ts';
import { MediatingProxy, type ProxyDependencies } from './proxy/mediating-proxy.ts';
import { providerError, providerErrorJson } from './proxy/provider-errors.ts';

export interface GatewayParts extends ProxyDependencies {
  /** Refreshes gauges (spool depth, bundle age) right before `/metrics` is read. */
  collect?: () => void;
  /** The `/mcp/<server>` routes (mcp/mcp-proxy.ts); absent: none. */
  mcp?: McpProxy;
}

/**
 * The gateway's HTTP surface: the provider-compatible endpoints, health and metrics. The
 * proxy endpoints are served straight from `node:http` (see proxy/agent-http.ts: they carry
 * every agent request, and Fastify's request/reply pipeline cost ~0.1 ms of each); Fastify
 * serves the rest and owns the server's lifecycle (listen, close).
 */
export function createGateway(
  parts: GatewayParts,
): FastifyInstance<Server, IncomingMessage, ServerResponse, Logger> {
  const proxy = new MediatingProxy(parts);
  let closing = false;
  const app = Fastify({
    loggerInstance: parts.log,
    bodyLimit: parts.bodyLimit,
    // Per-request log lines cost throughput on the hot path; metrics and receipts cover requests.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    serverFactory: (fastify) => {
      const server = createServer((request, response) => {
        const mcpServer = parts.mcp ? mcpServerOfPath(request.url) : undefined;
        if (mcpServer !== undefined && parts.mcp) {
          if (closing) {
            sendJson(response, 503, MCP_CLOSING, { connection: 'close' });
            return;
          }
          void parts.mcp.handle(mcpServer, request, response);
          return;
        }
        const surface = proxySurface(request);
        if (surface === undefined) return fastify(request, response);
        if (closing) {
          // As Fastify does for its own routes while closing.
          const message = 'gateway is shutting down; retry';
          sendJson(response, 503, providerErrorJson(surface, 503, message), {
            connection: 'close',
          });
          return;
        }
        void proxy.handle(surface, request, response);
      });
      // Fastify sets this on servers it creates, not on a factory's: without it Node closes an
      // idle keep-alive connection after 5 s, which races with a client (or a load balancer,
      // ALB's idle timeout is 60 s) sending its next request on it: an ECONNRESET, unanswered.
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      return server;
    },
  });
  app.addHook('preClose', async () => {
    closing = true;
    // Open SSE streams would hold the server open: MCP sessions end first.
    await parts.mcp?.close();
  });
  // No Fastify route reads a body: any content type is accepted (and ignored), so a POST to a
  // path that does not exist is a 404 rather than a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const active = parts.bundles.current();
    if (!active)
      return reply.status(503).send({ status: 'unavailable', reason: 'no valid bundle' });
    return { status: 'ok', bundle: active.etag };
  });
  app.get('/metrics', async (_request, reply) => {
    parts.collect?.();
    reply.header('content-type', parts.metrics.registry.contentType);
    return parts.metrics.registry.metrics();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) parts.log.error({ err: error }, 'gateway request failed');
    const surface = surfaceOfPath(request.url);
    const message =
      status === 413
        ? 'request body is too large'
        : status >= 500
          ? 'gateway error'
          : error.message;
    void reply.status(status).send(providerError(surface, status, message));
  });
  app.setNotFoundHandler((request, reply) => {
    // The URL is quoted without its credentials: a query may carry a key (Gemini's `?key=`).
    const message = `no route ${request.method} ${redactSecrets(request.url)}`;
    void reply.status(404).send(providerError(surfaceOfPath(request.url), 404, message));
  });
  return app;
}

/**
 * How long an idle agent connection stays open (Fastify's default, longer than common load
 * balancers' idle timeouts, so the side that sends closes first).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

const MCP_CLOSING = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32603, message: 'gateway is shutting down; retry' },
});
