import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { WatchEvent } from '@toolgate/contract';
import { API_VERSION, type LabelSelector, matchesLabelSelector } from '@toolgate/core';
import { StatusError } from '../common/api-errors.ts';
import { ChangeNotifier } from '../database/change-notifier.ts';
import { ResourceRepository } from './resource.repository.ts';

const PAGE = 500;
const BOOKMARK_EVERY_MS = 15_000;

/**
 * Streams a kind's changes after a resourceVersion: first what the event history holds, then
 * live as notifications arrive (from any API replica, via LISTEN/NOTIFY). A resourceVersion older
 * than the retained history answers 410 Gone, as Kubernetes does; the client re-lists.
 */
@Injectable()
export class WatchService implements BeforeApplicationShutdown {
  /** Ends every open watch on shutdown, or closing the server would wait for them (for up to
   * timeoutSeconds); clients re-watch from their last resourceVersion, as from any replica. */
  private readonly shutdown = new AbortController();

  constructor(
    @Inject(ResourceRepository) private readonly repo: ResourceRepository,
    @Inject(ChangeNotifier) private readonly notifier: ChangeNotifier,
  ) {}

  /** Throws 410 now (before any byte is sent) when `from` is too old. */
  async open(kind: string, from: bigint, selector: LabelSelector, signal: AbortSignal) {
    const oldest = await this.repo.oldestEventVersion();
    const current = await this.repo.currentResourceVersion();
    if (oldest !== undefined && from < current && from + 1n < oldest) {
      throw StatusError.of('Gone', `too old resource version: ${from} (oldest kept: ${oldest})`);
    }
    return this.stream(kind, from, selector, AbortSignal.any([signal, this.shutdown.signal]));
  }

  beforeApplicationShutdown(): void {
    this.shutdown.abort();
  }

  private async *stream(
    kind: string,
    from: bigint,
    selector: LabelSelector,
    signal: AbortSignal,
  ): AsyncGenerator<WatchEvent> {
    let last = from;
    let wake: (() => void) | undefined;
    let pending = false;
    const unsubscribe = this.notifier.subscribe((change) => {
      if (change && change.kind !== kind) return;
      pending = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        pending = false;
        const events = await this.repo.eventsSince(kind, last, PAGE);
        for (const event of events) {
          last = event.resourceVersion;
          if (matchesLabelSelector(selector, event.object.metadata.labels ?? {})) {
            yield { type: event.type, object: event.object };
          }
        }
        if (events.length === PAGE || pending) continue;
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), BOOKMARK_EVERY_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        wake = undefined;
        if (!woken && !signal.aborted) {
          yield {
            type: 'BOOKMARK',
            object: {
              apiVersion: API_VERSION,
              kind,
              metadata: { resourceVersion: last.toString() },
            },
          };
        }
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }
}
