import { isUtf8 } from 'node:buffer';
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { MediatingProxy, type ProxyDependencies } from './proxy/mediating-proxy.ts';
import { providerError } from './proxy/provider-errors.ts';

export interface GatewayParts extends ProxyDependencies {
  bodyLimit: number;
  /** Refreshes gauges (spool depth, bundle age) right before `/metrics` is read. */
  collect?: () => void;
}

/** A body the gateway cannot read: a 400 in the provider's error format. */
class InvalidBodyError extends Error {
  readonly statusCode = 400;
}

/**
 * The gateway's HTTP surface: the two provider-compatible endpoints, health and metrics. Bodies
 * are kept as text: the proxy parses them itself (malformed JSON is a provider-style 400, never
 * forwarded) and forwards the original bytes when mediation changed nothing.
 */
export function createGateway(
  parts: GatewayParts,
): FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  Logger
> {
  const app = Fastify({
    loggerInstance: parts.log,
    bodyLimit: parts.bodyLimit,
    // Per-request log lines cost throughput on the hot path; metrics and receipts cover requests.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  });
  app.removeAllContentTypeParsers();
  // Bytes, checked to be UTF-8 (simdutf, no copy) before decoding: a lenient decode would turn
  // invalid bytes into U+FFFD and forward a request the agent never sent.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(new InvalidBodyError('request body is not valid UTF-8'));
    done(null, bytes.toString('utf8'));
  });
  const proxy = new MediatingProxy(parts);

  app.post('/v1/chat/completions', (request, reply) => proxy.handle('openai-chat', request, reply));
  app.post('/v1/messages', (request, reply) => proxy.handle('anthropic-messages', request, reply));

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
    const surface = request.url.startsWith('/v1/messages') ? 'anthropic-messages' : 'openai-chat';
    const message =
      status === 413
        ? 'request body is too large'
        : status >= 500
          ? 'gateway error'
          : error.message;
    void reply.status(status).send(providerError(surface, status, message));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send(providerError('openai-chat', 404, `no route ${request.method} ${request.url}`));
  });
  return app;
}
