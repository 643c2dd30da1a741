import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { decodeProtobufExport } from './otlp-proto.ts';

/**
 * An OTLP/HTTP traces receiver for tests: a `node:http` server on 127.0.0.1 that takes what an
 * exporter POSTs to `/v1/traces` (http/protobuf or http/json, gzip or not), decodes it and keeps
 * every span, and every payload as it came (to look for what must never be in one).
 */
export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedEvent {
  name: string;
  attributes: Record<string, AttributeValue>;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span (of this process: its parent may be remote). */
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind). */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  events: ReceivedEvent[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, AttributeValue>;
  scope: string;
}

export interface ReceivedExport {
  contentType: string;
  headers: IncomingHttpHeaders;
  /** The body as received, decompressed. */
  body: Buffer;
}

export interface OtlpReceiver {
  /** The base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); traces are posted to `${url}/v1/traces`. */
  url: string;
  exports: ReceivedExport[];
  spans(): ReceivedSpan[];
  /** Waits until `ready(spans)` holds (polling what arrived), or fails after `timeoutMs`. */
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** Every payload as text, raw and decoded: what a secret must never appear in. */
  everything(): string;
  clear(): void;
  close(): Promise<void>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  let spans: ReceivedSpan[] = [];
  let decoded: unknown[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = String(request.headers['content-type'] ?? '');
      const raw = Buffer.concat(chunks);
      const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      let payload: unknown;
      try {
        payload = contentType.includes('json')
          ? JSON.parse(body.toString('utf8'))
          : decodeProtobufExport(body);
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
        return;
      }
      exports.push({ contentType, headers: request.headers, body });
      decoded.push(payload);
      spans.push(...spansOf(payload));
      // An empty ExportTraceServiceResponse: zero bytes in protobuf, `{}` in JSON.
      if (contentType.includes('json')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => [...spans],
    async waitFor(ready, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ready(spans)) {
        if (Date.now() > deadline) {
          const names = spans.map((s) => s.name).join(', ');
          throw new Error(`spans not received within ${timeoutMs} ms; got: ${names || 'none'}`);
        }
        await sleep(20);
      }
      return [...spans];
    },
    everything() {
      const raw = exports.map((e) => e.body.toString('latin1'));
      return [...raw, ...decoded.map((d) => JSON.stringify(d))].join('\n');
    },
    clear() {
      exports.length = 0;
      spans = [];
      decoded = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Json = Record<string, unknown>;
type KeyValue = { key: string; value?: Json };

/** The spans of one OTLP/JSON-shaped export request. */
function spansOf(payload: unknown): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of list((payload as Json).resourceSpans)) {
    const resource = attributesOf((resourceSpans.resource as Json | undefined)?.attributes);
    for (const scopeSpans of list(resourceSpans.scopeSpans)) {
      const scope = String((scopeSpans.scope as Json | undefined)?.name ?? '');
      for (const span of list(scopeSpans.spans)) {
        const parent = typeof span.parentSpanId === 'string' ? span.parentSpanId : '';
        const status = (span.status ?? {}) as Json;
        out.push({
          traceId: String(span.traceId),
          spanId: String(span.spanId),
          ...(parent !== '' ? { parentSpanId: parent } : {}),
          name: String(span.name),
          kind: Number(span.kind ?? 0),
          startNs: BigInt(String(span.startTimeUnixNano ?? 0)),
          endNs: BigInt(String(span.endTimeUnixNano ?? 0)),
          attributes: attributesOf(span.attributes),
          events: list(span.events).map((event) => ({
            name: String(event.name),
            attributes: attributesOf(event.attributes),
          })),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === 'string' && status.message !== ''
              ? { message: status.message }
              : {}),
          },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

function attributesOf(value: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list(value) as unknown as KeyValue[]) out[kv.key] = anyValue(kv.value);
  return out;
}

function anyValue(value: Json | undefined): AttributeValue {
  if (value === undefined) return null;
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return Boolean(value.boolValue);
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) {
    return list((value.arrayValue as Json | undefined)?.values).map((item) => anyValue(item));
  }
  return null;
}
