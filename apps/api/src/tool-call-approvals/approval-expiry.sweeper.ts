import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { ConflictError, NotFoundError } from '@toolgate/core';
import type { Logger } from 'pino';
import { API_ENV, LOGGER } from '../database/database.tokens.ts';
import type { ApiEnv } from '../env.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { ApprovalExpiryRepository } from './approval-expiry.repository.ts';
import { expiredStatus, needsExpiry } from './approval-transitions.ts';

const SWEEPER: Actor = { name: 'system:approval-expiry', roles: [] };
const RETENTION: Actor = { name: 'system:approval-retention', roles: [] };
/** Per sweep; a backlog larger than this is worked off over the next sweeps. */
const BATCH = 200;

/**
 * Writes `Expired` (reason `TtlElapsed`) on approvals past `expiresAt`, every
 * APPROVAL_SWEEP_INTERVAL_MS, and deletes expired ones APPROVAL_RETENTION_MS after they expired
 * (audited, a watch DELETED event; their receipts keep the decision), so the list stays bounded. Gateways judge expiry by the clock already; the condition is for
 * everyone else (watchers, the console, the audit log). Every replica sweeps; each expiry is
 * written once, as a transition re-checked under the row lock. Sweeps never overlap, and the
 * one in flight is awaited on shutdown, before the database connections close.
 */
@Injectable()
export class ApprovalExpirySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private purging: Promise<number> | undefined;
  private stopped = false;

  constructor(
    @Inject(ApprovalExpiryRepository) private readonly due: ApprovalExpiryRepository,
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(API_ENV) private readonly env: ApiEnv,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.purging;
  }

  /** One sweep: how many approvals it marked expired. */
  sweep(now = new Date()): Promise<number> {
    this.running ??= this.expireDue(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Deletes approvals expired more than APPROVAL_RETENTION_MS ago (0: keep them); how many. */
  purge(now = new Date()): Promise<number> {
    this.purging ??= this.deleteSettled(now).finally(() => {
      this.purging = undefined;
    });
    return this.purging;
  }

  private async deleteSettled(now: Date): Promise<number> {
    const retention = this.env.APPROVAL_RETENTION_MS;
    if (retention === 0) return 0;
    let deleted = 0;
    const cutoff = new Date(now.getTime() - retention);
    for (const { name, resourceVersion } of await this.due.settledBefore(cutoff, BATCH)) {
      if (this.stopped) break;
      try {
        // Only the version listed: one re-opened since (a new request) is pending again.
        await this.store.delete('ToolCallApproval', name, RETENTION, false, resourceVersion);
        deleted++;
      } catch (error) {
        if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
      }
    }
    return deleted;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      try {
        await this.sweep();
        await this.purge();
      } catch (error) {
        this.log.error({ err: error }, 'approval expiry sweep failed; retrying at the next');
      }
      this.schedule();
    }, this.env.APPROVAL_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  private async expireDue(now: Date): Promise<number> {
    let expired = 0;
    for (const name of await this.due.dueBefore(now, BATCH)) {
      if (this.stopped) break;
      try {
        const { written } = await this.store.transition(
          'ToolCallApproval',
          name,
          SWEEPER,
          'expire',
          (current) =>
            needsExpiry(current, now) ? { status: expiredStatus(current, now) } : undefined,
        );
        if (written) expired++;
      } catch (error) {
        // Deleted since it was listed: nothing left to expire.
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    return expired;
  }
}
