import type { Dispatcher } from 'undici';
import { errors } from 'undici';

export type UpstreamHeaders = Record<string, string | string[]>;

/** A provider's answer: status and headers once they arrived, the body as it arrives. */
export interface UpstreamAnswer {
  statusCode: number;
  /** Lower-case names; a repeated header's values in an array. */
  headers: UpstreamHeaders;
  body: UpstreamBody;
}

/** Receives the body: `data` returns false when it cannot take more until `resume()`. */
export interface BodySink {
  data(chunk: Buffer): boolean;
  end(): void;
  error(error: Error): void;
}

/**
 * An answer's body straight from undici's parser. The gateway reads every body exactly once,
 * whole (`text`) or relayed (`consume`), so it needs none of a `Readable`'s machinery, which
 * cost a stream, a promise per chunk and async-hook bookkeeping on the path of every request.
 * Chunks that arrive before the body is consumed (the same tick as the headers) are kept.
 */
export class UpstreamBody {
  private early: Buffer[] = [];
  private sink: BodySink | undefined;
  private ended = false;
  private failure: Error | undefined;

  constructor(
    private readonly resumeParser: () => void,
    private readonly abortCall: (reason: Error) => void,
  ) {}

  /** Hands every chunk to `sink`, those already here first. Once per body. */
  consume(sink: BodySink): void {
    if (this.sink) throw new Error('an upstream body is consumed once');
    this.sink = sink;
    const early = this.early;
    this.early = [];
    for (const chunk of early) sink.data(chunk);
    if (this.failure) sink.error(this.failure);
    else if (this.ended) sink.end();
  }

  /** The whole body as UTF-8 text. */
  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.consume({
        data: (chunk) => chunks.push(chunk) > 0,
        end: () =>
          resolve((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))?.toString() ?? ''),
        error: reject,
      });
    });
  }

  /** After a sink's `data` said false: the provider may send again. */
  resume(): void {
    this.resumeParser();
  }

  /** Stops the exchange; the sink gets `reason` as its error. */
  destroy(reason: Error): void {
    this.abortCall(reason);
  }

  /** @internal From the dispatch handler: false pauses the parser. */
  push(chunk: Buffer): boolean {
    if (this.sink) return this.sink.data(chunk);
    this.early.push(chunk);
    return true;
  }

  /** @internal */
  finish(): void {
    this.ended = true;
    this.sink?.end();
  }

  /** @internal */
  fail(error: Error): void {
    if (this.ended || this.failure) return;
    this.failure = error;
    this.sink?.error(error);
  }
}

/**
 * undici's dispatch handler for one provider call: resolves with the answer when its headers
 * arrive, rejects if the call fails before. The signal aborts the call at any point (the body
 * then fails with the abort error).
 */
export function answerHandler(
  signal: AbortSignal,
  settle: { resolve(answer: UpstreamAnswer): void; reject(error: Error): void },
): Dispatcher.DispatchHandler {
  let abort: ((reason: Error) => void) | undefined;
  let body: UpstreamBody | undefined;
  let settled = false;
  const aborted = () => new errors.RequestAbortedError();
  const onAbort = () => abort?.(aborted());
  signal.addEventListener('abort', onAbort, { once: true });
  const done = () => signal.removeEventListener('abort', onAbort);
  return {
    onConnect(abortCall) {
      abort = abortCall;
      if (signal.aborted) abortCall(aborted());
    },
    onHeaders(statusCode, rawHeaders, resume) {
      if (statusCode < 200) return true;
      body = new UpstreamBody(resume, (reason) => abort?.(reason));
      settled = true;
      settle.resolve({ statusCode, headers: headersOf(rawHeaders), body });
      return true;
    },
    onData(chunk) {
      return body?.push(chunk) ?? true;
    },
    onComplete() {
      done();
      body?.finish();
    },
    onError(error) {
      done();
      if (!settled) {
        settled = true;
        settle.reject(error);
      } else body?.fail(error);
    },
  };
}

/** Raw header pairs as an object: lower-case names, a repeated header's values in an array. */
export function headersOf(raw: ReadonlyArray<Buffer | string> | null): UpstreamHeaders {
  const headers: UpstreamHeaders = {};
  if (!raw) return headers;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]?.toString('latin1').toLowerCase() as string;
    const value = raw[i + 1]?.toString('utf8') as string;
    const known = headers[name];
    if (known === undefined) headers[name] = value;
    else if (Array.isArray(known)) known.push(value);
    else headers[name] = [known, value];
  }
  return headers;
}
