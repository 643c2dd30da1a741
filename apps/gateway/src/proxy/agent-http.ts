import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeUtf8Strictly, invalidUtf8Message, type ProviderSurface } from '@toolgate/core';
import { isGeminiPath } from './gemini-route.ts';

/**
 * The agent's side of the two proxy routes in plain `node:http`: routing, reading the body and
 * writing JSON answers. These routes carry every agent request, so they skip Fastify's
 * request/reply pipeline (hooks, content-type parsers, reply serialization), which cost ~0.1 ms
 * of each. Health, readiness, metrics and 404s stay on Fastify.
 */

const PROXY_ROUTES: ReadonlyMap<string, ProviderSurface> = new Map([
  ['/v1/chat/completions', 'openai-chat'],
  ['/v1/messages', 'anthropic-messages'],
  ['/v1/responses', 'openai-responses'],
]);

/** The provider surface a request is for, or undefined when it is not a proxy request. */
export function proxySurface(request: IncomingMessage): ProviderSurface | undefined {
  if (request.method !== 'POST') return undefined;
  const url = request.url ?? '';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  // Gemini's routes carry the model in the path (gemini-route.ts reads the rest).
  return PROXY_ROUTES.get(path) ?? (isGeminiPath(path) ? 'gemini' : undefined);
}

/** The surface whose error format answers a request that matched no route. */
export function surfaceOfPath(url: string): ProviderSurface {
  if (isGeminiPath(url)) return 'gemini';
  if (url.startsWith('/v1/messages')) return 'anthropic-messages';
  return url.startsWith('/v1/responses') ? 'openai-responses' : 'openai-chat';
}

/** An agent request the gateway cannot read: answered with this status, never forwarded. */
export class UnreadableBodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** A request body: its bytes as received, and their text. */
export interface AgentBody {
  bytes: Buffer;
  text: string;
}

/**
 * The request body (bytes and text), at most `limit` bytes, checked to be UTF-8 (simdutf, no copy)
 * before decoding: a lenient decode would turn invalid bytes into U+FFFD and forward a request
 * the agent never sent. Whatever is left unread of a refused body, Node discards once the answer
 * is sent, keeping the connection usable.
 *
 * A body framed by `Content-Length` (what SDKs send) is whole once that many bytes arrived: the
 * parser never hands on more, so it is done at that `data` event, without waiting for `end`
 * (another tick of stream machinery, on the path of every request). A chunked body is done at
 * `end`.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<AgentBody> {
  const tooLarge = () => new UnreadableBodyError(413, 'request body is too large');
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        stop();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
      if (length === declared) onEnd();
    };
    const onEnd = () => {
      stop();
      const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
      const decoded = decodeUtf8Strictly(bytes);
      if (decoded.ok) resolve({ bytes, text: decoded.text });
      else reject(new UnreadableBodyError(400, invalidUtf8Message(decoded.offset)));
    };
    const onError = (error: Error) => {
      stop();
      reject(new UnreadableBodyError(400, `request body could not be read: ${error.message}`));
    };
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}

/** A complete JSON answer: status, headers and body in one write. */
export function sendJson(
  response: ServerResponse,
  status: number,
  payload: string | Buffer,
  headers: Record<string, string | string[]> = {},
): void {
  if (response.destroyed) return;
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(payload));
  response.writeHead(status, headers);
  response.end(payload);
}
