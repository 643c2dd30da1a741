import {
  type Context,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * W3C Trace Context (`traceparent`, `tracestate`) in and out, with explicit contexts: the parent
 * of a span is always passed, never looked up in an ambient context.
 */
const propagator = new W3CTraceContextPropagator();

/** Only string values count: a carrier may be JSON from an agent (an MCP request's `_meta`). */
const getter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    return undefined;
  },
};

/**
 * The remote parent an incoming carrier names (HTTP headers, an MCP request's `params._meta`),
 * or the root context when it names none or an invalid one (the W3C propagator checks the
 * format: a malformed `traceparent` is ignored).
 */
export function remoteParent(carrier: Readonly<Record<string, unknown>> | undefined): Context {
  if (carrier === undefined) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, carrier, getter);
}

/** The context whose parent is `span`: what its children are started in. */
export function childOf(span: Span): Context {
  return trace.setSpan(ROOT_CONTEXT, span);
}

/** `traceparent` (and `tracestate`) naming `span`, to send on with a request it makes. */
export function traceHeaders(span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(childOf(span), carrier, defaultTextMapSetter);
  return carrier;
}
