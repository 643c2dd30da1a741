import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { NotFoundError } from '@toolgate/core';
import type { Logger } from 'pino';
import { API_ENV, LOGGER } from '../database/database.tokens.ts';
import type { ApiEnv } from '../env.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { ApprovalExpiryRepository } from './approval-expiry.repository.ts';
import { expiredStatus, needsExpiry } from './approval-transitions.ts';

const SWEEPER: Actor = { name: 'system:approval-expiry', roles: [] };
/** Per sweep; a backlog larger than this is worked off over the next sweeps. */
const BATCH = 200;

/**
 * Writes `Expired` (reason `TtlElapsed`) on approvals past `expiresAt`, every
 * APPROVAL_SWEEP_INTERVAL_MS. Gateways judge expiry by the clock already; the condition is for
 * everyone else (watchers, the console, the audit log). Every replica sweeps; each expiry is
 * written once, as a transition re-checked under the row lock. Sweeps never overlap, and the
 * one in flight is awaited on shutdown, before the database connections close.
 */
@Injectable()
export class ApprovalExpirySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
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
  }

  /** One sweep: how many approvals it marked expired. */
  sweep(now = new Date()): Promise<number> {
    this.running ??= this.expireDue(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      try {
        await this.sweep();
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
