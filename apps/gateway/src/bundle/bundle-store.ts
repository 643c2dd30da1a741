import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GatewayBundle } from '@toolgate/contract';
import type { CompiledBundle } from '@toolgate/core';
import type { Logger } from 'pino';
import { mkdirDurable, writeFileAtomic } from '../spool/durable-fs.ts';
import { validateBundle } from './validate-bundle.ts';

export { BundleRejectedError } from './validate-bundle.ts';

/** The bundle every request is mediated with. Replaced as a whole, never mutated. */
export interface ActiveBundle {
  readonly etag: string;
  readonly bundle: GatewayBundle;
  readonly compiled: CompiledBundle;
  /** When this bundle was first applied (kept across restarts: it dates the policy in force). */
  readonly appliedAt: Date;
}

/** `bundle.json`: the bundle exactly as received, so its hash can be checked again on load. */
interface PersistedBundle {
  etag: string;
  appliedAt: string;
  bundle: unknown;
}

export interface BundleStoreOptions {
  /** When set, a bundle built for another gateway is rejected (and not loaded from disk). */
  gateway?: string;
  now?: () => Date;
}

type StoreLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

/**
 * Holds the active bundle and its copy on disk. The copy is what lets a gateway restart while
 * the API is down and still enforce the last policy it accepted (SPEC §4): a gateway that came
 * up with no policy would have to refuse every request.
 */
export class BundleStore {
  private active: ActiveBundle | undefined;
  /** Applies run one at a time, so the file on disk and the active bundle never disagree. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly listeners: Array<(active: ActiveBundle) => void> = [];
  private readonly now: () => Date;

  private constructor(
    private readonly path: string,
    private readonly log: StoreLogger,
    private readonly gateway: string | undefined,
    options: BundleStoreOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Loads the last good bundle from `dir/bundle.json`, validating it again as if it had just
   * arrived. A missing, unreadable or invalid file is logged and ignored: the gateway then waits
   * for the API rather than failing to start.
   */
  static async open(
    dir: string,
    log: StoreLogger,
    options: BundleStoreOptions = {},
  ): Promise<BundleStore> {
    await mkdirDurable(dir);
    const store = new BundleStore(join(dir, 'bundle.json'), log, options.gateway, options);
    await store.load();
    return store;
  }

  /** True once a valid bundle is active: the gateway can mediate requests. */
  get ready(): boolean {
    return this.active !== undefined;
  }

  current(): ActiveBundle | undefined {
    return this.active;
  }

  /** Calls `listener` with each bundle applied from now on, once it is active. */
  onApplied(listener: (active: ActiveBundle) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Validates `raw` (schema, ETag = canonical hash of the content, compilation), persists it
   * atomically and only then makes it active. Throws {@link BundleRejectedError} for a bad
   * bundle, or the I/O error when it cannot be persisted; either way the previous bundle stays
   * active.
   */
  apply(raw: unknown, etag: string): Promise<ActiveBundle> {
    const run = this.tail.then(() => this.applyNow(raw, etag));
    this.tail = run.catch(() => {});
    return run;
  }

  private async applyNow(raw: unknown, etag: string): Promise<ActiveBundle> {
    const valid = validateBundle(raw, etag, this.gateway);
    if (this.active?.etag === etag) return this.active;
    const appliedAt = this.now();
    const persisted: PersistedBundle = { etag, appliedAt: appliedAt.toISOString(), bundle: raw };
    await writeFileAtomic(this.path, JSON.stringify(persisted));
    const active: ActiveBundle = { ...valid, appliedAt };
    this.active = active;
    for (const listener of this.listeners) {
      try {
        listener(active);
      } catch (error) {
        // A listener's failure is its own: the bundle is active all the same.
        this.log.error({ err: error }, 'a bundle listener failed');
      }
    }
    return active;
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.log.info({ path: this.path }, 'no persisted policy bundle: waiting for the API');
      } else {
        this.log.error({ err: error, path: this.path }, 'cannot read the persisted policy bundle');
      }
      return;
    }
    try {
      const persisted = JSON.parse(text) as Partial<PersistedBundle> | null;
      if (typeof persisted?.etag !== 'string') throw new Error('etag: must be a string');
      const valid = validateBundle(persisted.bundle, persisted.etag, this.gateway);
      const appliedAt = new Date(persisted.appliedAt ?? Number.NaN);
      this.active = {
        ...valid,
        appliedAt: Number.isNaN(appliedAt.getTime()) ? this.now() : appliedAt,
      };
      this.log.info(
        { path: this.path, etag: valid.etag, policies: valid.bundle.policies.length },
        'loaded the last good policy bundle from disk',
      );
    } catch (error) {
      this.log.error(
        { err: error, path: this.path },
        'ignoring the persisted policy bundle: it is corrupt or invalid; waiting for the API',
      );
    }
  }
}
