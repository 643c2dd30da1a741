import { type ApiClient, ApiError } from '@toolgate/contract';
import type { JsonObject } from '@toolgate/core';
import type { Logger } from 'pino';

export interface SchemaUploaderOptions {
  client: ApiClient;
  log: Pick<Logger, 'error'>;
  /** How many uploaded hashes to remember. Default 10 000; forgetting one only costs a re-PUT. */
  remember?: number;
  /** Parallel PUTs per batch. Default 4. */
  concurrency?: number;
}

/**
 * Uploads the tool declarations a batch of receipts references to the API's content-addressed
 * store, before the receipts themselves, so every schema hash in a stored receipt resolves.
 * The PUT is idempotent; the bounded memory of what went up only saves requests.
 */
export class SchemaUploader {
  private readonly uploaded = new Set<string>();
  private readonly remember: number;
  private readonly concurrency: number;

  constructor(private readonly options: SchemaUploaderOptions) {
    this.remember = options.remember ?? 10_000;
    this.concurrency = options.concurrency ?? 4;
  }

  /**
   * Throws when any upload failed for a reason that may pass (network, 5xx, 429, auth): then the
   * batch must wait. A declaration the API refuses as invalid (400/413/422) is a gateway bug that
   * retrying cannot fix: it is logged loudly and skipped, and the receipts still go.
   */
  async upload(
    records: ReadonlyArray<{ schemas: Record<string, JsonObject> }>,
    signal: AbortSignal,
  ): Promise<void> {
    const todo = new Map<string, JsonObject>();
    for (const record of records) {
      for (const [hash, declaration] of Object.entries(record.schemas ?? {})) {
        if (!this.uploaded.has(hash)) todo.set(hash, declaration);
      }
    }
    const queue = [...todo];
    const errors: unknown[] = [];
    const worker = async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        try {
          await this.put(item[0], item[1], signal);
        } catch (error) {
          errors.push(error);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, queue.length) }, worker));
    if (errors.length > 0) throw errors[0];
  }

  private async put(hash: string, declaration: JsonObject, signal: AbortSignal): Promise<void> {
    try {
      await this.options.client.call('receipts.putSchema', {
        params: { hash },
        body: declaration,
        signal,
      });
    } catch (error) {
      const permanent = error instanceof ApiError && [400, 413, 422].includes(error.httpStatus);
      if (!permanent) throw error;
      this.options.log.error(
        { hash, status: error.httpStatus, error: error.message },
        'BUG: the API refused a tool declaration; receipts referencing it ship without it',
      );
    }
    this.remembered(hash);
  }

  private remembered(hash: string): void {
    this.uploaded.add(hash);
    if (this.uploaded.size > this.remember) {
      // A Set iterates in insertion order: drop the oldest.
      const oldest = this.uploaded.values().next().value as string;
      this.uploaded.delete(oldest);
    }
  }
}
