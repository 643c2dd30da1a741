import { performance } from 'node:perf_hooks';
import { TextDecoder } from 'node:util';
import {
  type BundleHostedTool,
  boundedText,
  forbiddenEndpointAddress,
  formatDuration,
  isJsonObject,
  type JsonValue,
  parseDuration,
  scrubSecrets,
} from '@toolgate/core';
import { type Dispatcher, Pool } from 'undici';
import { guardedLookup } from './endpoint-address.ts';
import type { HostedCall, HostedResult, HostedToolExecutor } from './hosted-executor.ts';
import { REDACTED, redactPaths } from './redact-paths.ts';

/**
 * The executor of a `HostedTool` resource (docs/hosted-tool-endpoints.md is the endpoint's side of
 * this): the call's arguments POSTed as JSON to `spec.endpoint.url` on a keep-alive pool of its
 * own, the answer read as a bounded stream, redacted and handed to the model as the tool's result.
 * Every failure is an outcome (never a throw); nothing here logs, and no secret value reaches a
 * result's content, whatever the endpoint echoes.
 */

export interface HttpToolExecutorOptions {
  /** Where `secretRef.env` header values are read, at every call: the gateway's environment. */
  secrets: Readonly<Record<string, string | undefined>>;
  /** Instead of the executor's own pool (tests, a shared agent); not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Milliseconds, for durations (`performance.now` by default). */
  now?: () => number;
  /** Largest argument JSON sent, in bytes (64 KiB by default); a larger call is `refused`. */
  maxArgumentBytes?: number;
  /** Most characters of content handed to the model (256 Ki by default); more is cut, marked. */
  maxContentChars?: number;
}

export interface HttpToolExecutor extends HostedToolExecutor {
  /** Closes the executor's pool (not a given `dispatcher`). */
  close(): Promise<void>;
}

export const HTTP_TOOL_DEFAULTS = {
  maxArgumentBytes: 64 * 1024,
  maxContentChars: 256 * 1024,
  /** Of a failed answer's body, shown to the model (scrubbed) so it can correct its call. */
  errorBodyChars: 1024,
  /** First retry's delay; doubled per attempt, at most 1 s. */
  retryDelayMs: 100,
} as const;

type Outcome = HostedResult['outcome'];

/** What one attempt came to; `retry` when a further attempt may help (connection error, 5xx). */
interface Attempt {
  outcome: Outcome;
  content: string;
  status?: number;
  redactedPaths?: string[];
  retry?: boolean;
}

const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

export function createHttpToolExecutor(
  tool: BundleHostedTool,
  options: HttpToolExecutorOptions,
): HttpToolExecutor {
  const { endpoint } = tool.spec;
  const label = tool.spec.tool.name;
  const url = new URL(endpoint.url);
  const path = `${url.pathname}${url.search}`;
  const timeoutMs = parseDuration(endpoint.timeout) ?? 10_000;
  const retries = endpoint.retries;
  const maxResponseBytes = endpoint.maxResponseBytes;
  const redact = tool.spec.redact ?? [];
  const maxArgumentBytes = options.maxArgumentBytes ?? HTTP_TOOL_DEFAULTS.maxArgumentBytes;
  const maxContentChars = options.maxContentChars ?? HTTP_TOOL_DEFAULTS.maxContentChars;
  const now = options.now ?? (() => performance.now());
  const literalForbidden = forbiddenEndpointAddress(url.hostname);
  const ownPool =
    options.dispatcher === undefined
      ? new Pool(url.origin, {
          connections: 32,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          // The executor's own per-attempt timer bounds a call, headers and body alike.
          headersTimeout: 0,
          bodyTimeout: 0,
          connect: { lookup: guardedLookup },
        })
      : undefined;
  const dispatcher = (options.dispatcher ?? ownPool) as Dispatcher;

  /** Secret values of this call's headers, never to be shown: replaced wherever they appear. */
  const hide = (text: string, secrets: string[]): string => {
    let out = text;
    for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, REDACTED);
    return out;
  };

  const failure = (outcome: Outcome, what: string, extra: Partial<Attempt> = {}): Attempt => ({
    outcome,
    content: `${label} failed (${outcome}): ${what}`,
    ...extra,
  });

  function headersFor(
    call: HostedCall,
  ): { headers: Record<string, string>; secrets: string[] } | Attempt {
    const headers: Record<string, string> = {};
    const secrets: string[] = [];
    for (const header of endpoint.headers ?? []) {
      if (header.value !== undefined) headers[header.name.toLowerCase()] = header.value;
      else if (header.secretRef) {
        const value = options.secrets[header.secretRef.env];
        if (value === undefined || value === '') {
          return failure(
            'refused',
            `header ${header.name} is read from environment variable ${header.secretRef.env}, which is not set on this gateway`,
          );
        }
        headers[header.name.toLowerCase()] = value;
        secrets.push(value);
      }
    }
    headers['content-type'] = 'application/json';
    headers.accept ??= 'application/json, text/plain;q=0.5';
    headers['user-agent'] ??= 'toolgate-gateway';
    headers['x-toolgate-call-id'] = call.id;
    if (call.traceparent !== undefined) headers.traceparent = call.traceparent;
    return { headers, secrets };
  }

  async function attempt(
    body: string,
    headers: Record<string, string>,
    secrets: string[],
    signal: AbortSignal,
  ): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, timeoutMs);
    const follow = () => controller.abort(new Error('cancelled'));
    if (signal.aborted) follow();
    else signal.addEventListener('abort', follow, { once: true });
    const stopped = (): Attempt =>
      timedOut
        ? failure('timeout', `the endpoint did not answer within ${formatDuration(timeoutMs)}`)
        : failure('timeout', 'the call was cancelled before the endpoint answered');
    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await dispatcher.request({
          origin: url.origin,
          path,
          method: 'POST',
          headers,
          body,
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.signal.aborted) return stopped();
        return connectionFailure(error);
      }
      const { statusCode } = response;
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxResponseBytes) {
        response.body.destroy();
        return failure(
          'too_large',
          `the answer has ${declared} bytes, more than ${maxResponseBytes}`,
          {
            status: statusCode,
          },
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxResponseBytes) {
            // Ends the exchange and its connection: the rest of the answer is never read.
            response.body.destroy();
            return failure('too_large', `the answer is longer than ${maxResponseBytes} bytes`, {
              status: statusCode,
            });
          }
          chunks.push(chunk);
        }
      } catch (error) {
        if (controller.signal.aborted) return stopped();
        return connectionFailure(error, statusCode);
      }
      const bytes = Buffer.concat(chunks);
      const type = String(response.headers['content-type'] ?? '');
      if (statusCode < 200 || statusCode > 299) {
        const snippet = boundedText(
          scrubSecrets(hide(bytes.toString('utf8'), secrets)).trim(),
          HTTP_TOOL_DEFAULTS.errorBodyChars,
        );
        return failure(
          'error',
          `the endpoint answered HTTP ${statusCode}${snippet === '' ? '' : `: ${snippet}`}`,
          { status: statusCode, retry: statusCode >= 500 },
        );
      }
      return answer(bytes, type, statusCode, secrets);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', follow);
    }
  }

  function connectionFailure(error: unknown, status?: number): Attempt {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'TOOLGATE_FORBIDDEN_ADDRESS') {
      return failure('refused', (error as Error).message);
    }
    const known = typeof code === 'string' && CONNECTION_ERRORS.has(code);
    return failure(
      'unavailable',
      known ? `the endpoint could not be reached (${code})` : 'the endpoint could not be reached',
      { retry: true, ...(status === undefined ? {} : { status }) },
    );
  }

  function answer(bytes: Buffer, type: string, status: number, secrets: string[]): Attempt {
    if (bytes.length === 0) return { outcome: 'ok', content: '', status };
    let text: string;
    try {
      text = fatalUtf8.decode(bytes);
    } catch {
      return failure('bad_response', 'the answer is not valid UTF-8', { status });
    }
    const essence = type.split(';')[0]?.trim().toLowerCase() ?? '';
    if (essence === 'text/plain' && redact.length === 0) {
      return { outcome: 'ok', content: bound(hide(text, secrets)), status };
    }
    if (essence !== '' && essence !== 'application/json' && !essence.endsWith('+json')) {
      return failure(
        'bad_response',
        essence === 'text/plain'
          ? 'the answer is text, but this tool redacts paths of a JSON answer'
          : `the answer is ${boundedText(essence, 100)}, not JSON`,
        { status },
      );
    }
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch {
      return failure('bad_response', 'the answer is not JSON', { status });
    }
    const redaction = redactPaths(value, redact);
    return {
      outcome: 'ok',
      content: bound(hide(JSON.stringify(redaction.value), secrets)),
      status,
      ...(redaction.paths.length > 0 ? { redactedPaths: redaction.paths } : {}),
    };
  }

  function bound(content: string): string {
    if (content.length <= maxContentChars) return content;
    const note = `…[cut: ${content.length - maxContentChars} more characters]`;
    return boundedText(content, maxContentChars - note.length + 1).slice(0, -1) + note;
  }

  async function run(call: HostedCall): Promise<Attempt> {
    if (literalForbidden !== undefined) {
      return failure(
        'refused',
        `${url.hostname} is ${literalForbidden}, which hosted tools may not call`,
      );
    }
    if (!isJsonObject(call.arguments)) {
      return failure('refused', 'the arguments must be a JSON object');
    }
    const body = JSON.stringify(call.arguments);
    if (Buffer.byteLength(body) > maxArgumentBytes) {
      return failure('refused', `the arguments are longer than ${maxArgumentBytes} bytes`);
    }
    const prepared = headersFor(call);
    if ('outcome' in prepared) return prepared;
    let result = await attempt(body, prepared.headers, prepared.secrets, call.signal);
    for (let n = 1; n <= retries && result.retry === true && !call.signal.aborted; n++) {
      const delay = Math.min(1_000, HTTP_TOOL_DEFAULTS.retryDelayMs * 2 ** (n - 1));
      if (!(await sleep(delay, call.signal))) break;
      result = await attempt(body, prepared.headers, prepared.secrets, call.signal);
    }
    return result;
  }

  return {
    async execute(call) {
      const started = now();
      let result: Attempt;
      try {
        result = await run(call);
      } catch {
        // Not expected (every known failure is an outcome above); the message stays generic so
        // nothing of the request (headers, secrets) can leak through it.
        result = failure('error', 'the call failed inside the gateway');
      }
      return {
        outcome: result.outcome,
        isError: result.outcome !== 'ok',
        content: result.content,
        ...(result.status === undefined ? {} : { status: result.status }),
        durationMs: Math.max(0, now() - started),
        ...(result.redactedPaths ? { redactedPaths: result.redactedPaths } : {}),
      };
    },
    async close() {
      await ownPool?.destroy().catch(() => {});
    },
  };
}

/** Resolves true after `ms`, false at once when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
