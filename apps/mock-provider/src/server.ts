import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { z } from 'zod';
import * as anthropic from './anthropic.ts';
import * as gemini from './gemini.ts';
import { conversationHash, deriveId, estimateTokens } from './ids.ts';
import { tooDeepMessage } from './nesting.ts';
import * as openai from './openai.ts';
import { REDACTED, RequestLog } from './request-log.ts';
import * as responses from './responses.ts';
import {
  countToolResults,
  type DeclaredTool,
  planReply,
  type ReplyPlan,
  resolveScript,
  scriptSource,
} from './script.ts';
import { encodeSse, type SseEvent } from './sse.ts';

export interface MockProviderOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Server-wide latency before every answer; a request's `latencyMs` replaces it. */
  latencyMs?: number;
  /** When set, requests must carry exactly this key (Bearer or x-api-key); 401 otherwise. */
  requireKey?: string;
  /** OpenAI's `created` timestamp; fixed so answers are reproducible. Default 1700000000. */
  created?: number;
  /** How many requests `GET /__mock/requests` keeps. Default 1000. */
  requestLogSize?: number;
  logger?: FastifyServerOptions['logger'];
}

export interface MockProvider {
  app: FastifyInstance;
  /** `http://host:port`, no trailing slash; OpenAI clients want `${url}/v1` as their baseURL. */
  url: string;
  requests: RequestLog;
  close(): Promise<void>;
}

export const DEFAULT_CREATED = 1_700_000_000;

/** A validated request, with what the reply needs from it. */
type Prepared =
  | { ok: false; message: string }
  | {
      ok: true;
      stream: boolean;
      tools: DeclaredTool[];
      userText: string;
      body(plan: ReplyPlan): unknown;
      events(plan: ReplyPlan): SseEvent[];
    };

/** What differs between the provider APIs; the request handling is shared. */
interface Dialect {
  /** Fastify route paths (Gemini's name the model: `/v1beta/models/:target`). */
  paths: string[];
  requestIdHeader: string;
  error(status: number, message: string, type?: string): unknown;
  /** `url` is the request's, for a dialect whose path carries request parameters. */
  prepare(body: unknown, requestHash: string, url: string): Prepared;
}

function openAIDialect(created: number): Dialect {
  return {
    paths: ['/v1/chat/completions'],
    requestIdHeader: 'x-request-id',
    error: openai.openAIError,
    prepare(body, requestHash) {
      const parsed = openai.ChatCompletionRequest.safeParse(body);
      if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error) };
      const request = parsed.data;
      const ctx: openai.OpenAIContext = {
        requestHash,
        created,
        model: request.model,
        promptTokens: estimateTokens([request.messages, request.tools]),
      };
      const includeUsage = request.stream_options?.include_usage === true;
      return {
        ok: true,
        stream: request.stream === true,
        tools: openai.declaredTools(request),
        userText: openai.lastUserText(request),
        body: (plan) => openai.chatCompletion(plan, ctx),
        events: (plan) => openai.chatCompletionEvents(plan, ctx, { includeUsage }),
      };
    },
  };
}

function responsesDialect(created: number): Dialect {
  return {
    paths: ['/v1/responses'],
    requestIdHeader: 'x-request-id',
    error: openai.openAIError,
    prepare(body, requestHash) {
      const parsed = responses.ResponsesRequest.safeParse(body);
      if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error) };
      const request = parsed.data;
      const ctx: responses.ResponsesContext = {
        requestHash,
        created,
        request,
        inputTokens: estimateTokens([request.instructions, request.input, request.tools]),
      };
      return {
        ok: true,
        stream: request.stream === true,
        tools: responses.declaredTools(request),
        userText: responses.lastUserText(request),
        body: (plan) => responses.responseBody(plan, ctx),
        events: (plan) => responses.responseEvents(plan, ctx),
      };
    },
  };
}

const anthropicDialect: Dialect = {
  paths: ['/v1/messages'],
  requestIdHeader: 'request-id',
  error: anthropic.anthropicError,
  prepare(body, requestHash) {
    const parsed = anthropic.MessagesRequest.safeParse(body);
    if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error) };
    const request = parsed.data;
    const ctx: anthropic.AnthropicContext = {
      requestHash,
      model: request.model,
      inputTokens: estimateTokens([request.system, request.messages, request.tools]),
    };
    return {
      ok: true,
      stream: request.stream === true,
      tools: anthropic.declaredTools(request),
      userText: anthropic.lastUserText(request),
      body: (plan) => anthropic.message(plan, ctx),
      events: (plan) => anthropic.messageEvents(plan, ctx),
    };
  },
};

/** Gemini: model and stream flag from the path, the rest from the body. */
const geminiDialect: Dialect = {
  paths: ['/v1beta/models/:target', '/v1/models/:target'],
  requestIdHeader: 'x-request-id',
  error: gemini.geminiError,
  prepare(body, requestHash, url) {
    const target = gemini.readGeminiPath(url);
    if (!target) return { ok: false, message: 'unknown method: use :generateContent' };
    const parsed = gemini.GenerateContentRequest.safeParse(body);
    if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error) };
    const request = parsed.data;
    const ctx: gemini.GeminiContext = {
      requestHash,
      model: target.model,
      promptTokens: estimateTokens([request.systemInstruction, request.contents, request.tools]),
    };
    return {
      ok: true,
      stream: target.stream,
      tools: gemini.declaredTools(request),
      userText: gemini.lastUserText(request),
      body: (plan) => gemini.generateContent(plan, ctx),
      events: (plan) => gemini.generateContentEvents(plan, ctx),
    };
  },
};

function presentedKeys(request: FastifyRequest): string[] {
  const { authorization, 'x-api-key': apiKey, 'x-goog-api-key': googKey } = request.headers;
  const keys: string[] = [];
  if (authorization?.startsWith('Bearer ')) keys.push(authorization.slice('Bearer '.length));
  if (typeof apiKey === 'string') keys.push(apiKey);
  if (typeof googKey === 'string') keys.push(googKey);
  const inQuery = (request.query as Record<string, unknown> | undefined)?.key;
  if (typeof inQuery === 'string') keys.push(inQuery);
  return keys;
}

/** A URL with its `key` query parameter (Gemini's API key) redacted, as the log keeps it. */
function redactQueryKey(url: string): string {
  return url.replace(/([?&]key=)[^&#]*/g, `$1${REDACTED}`);
}

/** Waits, unless the client goes away first; says whether the answer is still wanted. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms > 0) await sleep(ms, undefined, { signal }).catch(() => undefined);
  return !signal.aborted;
}

/** Resolves once the chunk has been handed to the kernel, so a cut right after loses nothing. */
function write(reply: FastifyReply, chunk: string): Promise<void> {
  return new Promise((resolve) => reply.raw.write(chunk, () => resolve()));
}

/** A Fastify server speaking the provider APIs, listening; see the README for the scripts. */
export async function createMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const requests = new RequestLog(options.requestLogSize);
  const created = options.created ?? DEFAULT_CREATED;
  const dialects = [
    openAIDialect(created),
    anthropicDialect,
    responsesDialect(created),
    geminiDialect,
  ];
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: 32 * 1024 * 1024,
    // A hanging request must not keep close() waiting.
    forceCloseConnections: true,
  });

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    const dialect = dialects.find((d) =>
      d.paths.some((path) => request.url.startsWith(path.split(':')[0] as string)),
    );
    reply
      .code(status)
      .send(dialect ? dialect.error(status, error.message) : { error: error.message });
  });

  async function handle(dialect: Dialect, request: FastifyRequest, reply: FastifyReply) {
    // A body too deep to serialize is logged as what was refused, so the log stays readable.
    const tooDeep = tooDeepMessage(request.body);
    requests.add({
      method: request.method,
      path: redactQueryKey(request.url),
      headers: request.headers,
      body: tooDeep ? { refused: tooDeep } : request.body,
    });
    const fail = (status: number, message: string, type?: string) =>
      reply.code(status).send(dialect.error(status, message, type));
    if (tooDeep) return fail(400, tooDeep);
    const requestHash = conversationHash(request.body);
    const requestId = deriveId('req_', requestHash, 'request');
    reply.header(dialect.requestIdHeader, requestId);

    if (options.requireKey && !presentedKeys(request).includes(options.requireKey)) {
      return fail(401, 'invalid API key (the mock provider requires MOCK_REQUIRE_KEY)');
    }
    const prepared = dialect.prepare(request.body, requestHash, request.url);
    if (!prepared.ok) return fail(400, prepared.message);
    const header = request.headers['x-mock-script'];
    const resolved = resolveScript(
      typeof header === 'string' ? header : undefined,
      scriptSource(prepared.userText, request.body),
      countToolResults(request.body),
    );
    if (!resolved.ok) return fail(400, resolved.message);
    const { script } = resolved;

    if (script.hang) return reply.hijack();
    const gone = new AbortController();
    reply.raw.on('close', () => gone.abort());
    if (!(await pause(script.latencyMs ?? options.latencyMs ?? 0, gone.signal))) {
      return reply.hijack();
    }
    if (script.error) {
      const { status, message, type } = script.error;
      return fail(status, message ?? `mock error ${status}`, type);
    }
    if (script.cut !== undefined && !prepared.stream) {
      reply.hijack();
      reply.raw.destroy();
      return reply;
    }

    const plan = planReply(script, prepared.tools, prepared.userText);
    if (!prepared.stream) return reply.send(prepared.body(plan));

    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      [dialect.requestIdHeader]: requestId,
    });
    const events = prepared.events(plan).slice(0, script.cut);
    for (const [index, event] of events.entries()) {
      if (index > 0 && !(await pause(script.chunkDelayMs ?? 0, gone.signal))) return reply;
      if (gone.signal.aborted) return reply;
      await write(reply, encodeSse(event));
    }
    if (script.cut === undefined) reply.raw.end();
    else if (events.length > 0) reply.raw.destroy();
    else {
      reply.raw.flushHeaders();
      reply.raw.socket?.end();
    }
    return reply;
  }

  for (const dialect of dialects) {
    for (const path of dialect.paths) {
      app.post(path, (request, reply) => handle(dialect, request, reply));
    }
  }

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/__mock/requests', async (request, reply) => {
    const query = z
      .object({ limit: z.coerce.number().int().min(0).optional() })
      .safeParse(request.query);
    if (!query.success) return reply.code(400).send({ error: z.prettifyError(query.error) });
    return { requests: requests.last(query.data.limit) };
  });

  app.delete('/__mock/requests', async (_request, reply) => {
    requests.clear();
    return reply.code(204).send();
  });

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { app, url: `http://${host}:${address.port}`, requests, close: () => app.close() };
}
