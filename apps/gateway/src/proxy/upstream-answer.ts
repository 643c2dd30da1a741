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
 * One provider call, as undici's dispatch handler: `answer` resolves when the answer's headers
 * arrive, or rejects if the call fails before. `abort()` stops the call at any point (the body
 * then fails with undici's RequestAbortedError). A plain method rather than an AbortSignal:
 * the signal, its listener and its removal cost ~7 µs on the path of every request.
 */
export class ProviderCall implements Dispatcher.DispatchHandler {
  readonly answer: Promise<UpstreamAnswer>;
  private resolve!: (answer: UpstreamAnswer) => void;
  private reject!: (error: Error) => void;
  private abortCall: ((reason: Error) => void) | undefined;
  private body: UpstreamBody | undefined;
  private abortedByUs = false;

  constructor() {
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Whether `abort()` was called. */
  get aborted(): boolean {
    return this.abortedByUs;
  }

  /** Stops the call, now or as soon as it is connected. */
  abort(): void {
    if (this.abortedByUs) return;
    this.abortedByUs = true;
    this.abortCall?.(new errors.RequestAbortedError());
  }

  onConnect(abortCall: (reason: Error) => void): void {
    this.abortCall = abortCall;
    if (this.abortedByUs) abortCall(new errors.RequestAbortedError());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const body = new UpstreamBody(resume, (reason) => this.abortCall?.(reason));
    this.body = body;
    this.resolve({ statusCode, headers: headersOf(rawHeaders), body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.body?.push(chunk) ?? true;
  }

  onComplete(): void {
    this.body?.finish();
  }

  onError(error: Error): void {
    // Before the headers the answer fails; after them, its body.
    if (this.body) this.body.fail(error);
    else this.reject(error);
  }
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
