import type { ApiClient } from '@toolgate/contract';
import { ToolCallApproval } from '@toolgate/core';
import type { Logger } from 'pino';
import { request } from 'undici';
import { Backoff } from '../shipping/backoff.ts';
import type { ApprovalBook } from './approval-book.ts';

export interface ApprovalWatchOptions {
  client: ApiClient;
  /** The API's base URL and the gateway's token: the watch is a stream the client cannot read. */
  apiUrl: string;
  token?: string;
  book: ApprovalBook;
  log: Pick<Logger, 'warn' | 'debug'>;
  /** A watch is re-opened after this long even when healthy. Default 300 s. */
  timeoutSeconds?: number;
  onSynced?: () => void;
  onFailure?: () => void;
}

const PATH = '/apis/toolgate.dev/v1/toolcallapprovals';
/** Longest watch line accepted: an approval is bounded (16 KiB of arguments and small fields). */
const MAX_LINE = 256 * 1024;

/**
 * Keeps the gateway's {@link ApprovalBook} current: lists every approval, then watches from the
 * list's resourceVersion (the API wakes watchers through LISTEN/NOTIFY, so an approval reaches
 * the gateway in milliseconds). A watch that ends is re-opened from the last resourceVersion
 * seen; one the API answers 410 Gone (too old), or any failure, starts over with a fresh list
 * after a backoff. Every event is validated before it is believed.
 */
export class ApprovalWatch {
  private readonly stopping = new AbortController();
  private readonly backoff = new Backoff();
  private loop: Promise<void> | undefined;

  constructor(private readonly options: ApprovalWatchOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        let version = await this.list();
        this.options.onSynced?.();
        this.backoff.reset();
        // Re-open from where the last watch ended until it fails.
        for (;;) {
          const next = await this.watch(version);
          if (next === undefined || signal.aborted) break;
          version = next;
        }
      } catch (error) {
        if (signal.aborted) return;
        this.options.onFailure?.();
        const wait = this.backoff.next();
        this.options.log.warn({ err: error, retryInMs: wait }, 'approval watch failed');
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, wait);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
      }
    }
  }

  /** Lists every approval into the book; returns the list's resourceVersion. */
  private async list(): Promise<string> {
    const items: ToolCallApproval[] = [];
    let next: string | undefined;
    let version = '0';
    do {
      const page = await this.options.client.call('toolCallApprovals.list', {
        query: { limit: '500', ...(next ? { continue: next } : {}) },
      });
      items.push(...(page.items as ToolCallApproval[]));
      version = page.metadata.resourceVersion;
      next = page.metadata.continue;
    } while (next);
    this.options.book.reset(items);
    return version;
  }

  /**
   * One watch stream from `version`. Returns the last resourceVersion seen when the stream
   * ended normally (re-watch from it), undefined when it must start over (410 Gone).
   */
  private async watch(version: string): Promise<string | undefined> {
    const timeout = this.options.timeoutSeconds ?? 300;
    const url = `${this.options.apiUrl}${PATH}?watch=true&resourceVersion=${version}&timeoutSeconds=${timeout}`;
    const answer = await request(url, {
      headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
      signal: this.stopping.signal,
      headersTimeout: 15_000,
      bodyTimeout: (timeout + 30) * 1000,
    });
    if (answer.statusCode === 410) {
      await answer.body.dump();
      return undefined;
    }
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      throw new Error(`approval watch answered ${answer.statusCode}`);
    }
    let last = version;
    let buffer = '';
    for await (const chunk of answer.body) {
      buffer += (chunk as Buffer).toString('utf8');
      if (buffer.length > MAX_LINE && !buffer.includes('\n')) {
        answer.body.destroy();
        throw new Error('approval watch sent an over-long line');
      }
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        last = this.apply(line) ?? last;
        newline = buffer.indexOf('\n');
      }
    }
    return last;
  }

  /** Applies one watch line; returns its resourceVersion. */
  private apply(line: string): string | undefined {
    if (line.trim() === '') return undefined;
    const event = JSON.parse(line) as { type?: string; object?: unknown };
    const version = (event.object as { metadata?: { resourceVersion?: unknown } } | undefined)
      ?.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') return typeof version === 'string' ? version : undefined;
    const parsed = ToolCallApproval.safeParse(event.object);
    if (!parsed.success) {
      this.options.log.warn({ type: event.type }, 'approval watch sent an invalid object: ignored');
      return typeof version === 'string' ? version : undefined;
    }
    if (event.type === 'DELETED') this.options.book.remove(parsed.data.metadata.name);
    else this.options.book.put(parsed.data);
    return parsed.data.metadata.resourceVersion;
  }
}
