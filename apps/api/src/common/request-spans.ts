import { type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { redactSecrets } from '@toolgate/core';
import { remoteParent } from '@toolgate/telemetry';
import type { FastifyInstance } from 'fastify';
import type { ToolgateRouteConfig } from '../auth/access-hook.ts';

/**
 * A SERVER span per API request when tracing is on (docs/observability.md): started in the
 * first `onRequest` hook (so refusals of the access check have theirs), the caller's
 * `traceparent` its parent, ended when the response is done — a hijacked one (watches,
 * long-polls) included — named `{method} {route}` with the HTTP conventions' attributes and the
 * contract route's name. No header, query or body reaches a span.
 */
export function traceRequests(fastify: FastifyInstance, tracer: Tracer): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const method = request.method;
    const span: Span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          // The path only (a query may carry a token), with anything credential-shaped redacted.
          [ATTR_URL_PATH]: redactSecrets(pathOf(request.url)).slice(0, 2048),
        },
      },
      remoteParent(request.headers),
    );
    reply.raw.once('close', () => {
      const route = request.is404 ? undefined : request.routeOptions.url;
      if (route !== undefined) {
        span.updateName(`${method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      const name = (request.routeOptions.config as ToolgateRouteConfig | undefined)?.routeName;
      if (name !== undefined) span.setAttribute('toolgate.route', name);
      const status = reply.raw.statusCode;
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // A watch or long-poll the caller left is how those end, not a failure.
      if (!reply.raw.writableFinished) span.setAttribute('toolgate.aborted', true);
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    done();
  });
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
