import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { StatusError } from '../common/api-errors.ts';
import { API_ENV } from '../database/database.tokens.ts';
import type { ApiEnv } from '../env.ts';
import type { AuthenticatedRequest } from './access-control.ts';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Past this many clients, buckets that have refilled completely are forgotten. */
const MAX_TRACKED_CLIENTS = 10_000;

/**
 * A token bucket per client on the routes that mint credentials: `TOKEN_RATE_BURST` requests at
 * once, refilled at `TOKEN_RATE_PER_MINUTE`. A client is the authenticated identity (the auth
 * guard runs first), else the address. Past the limit: 429 with `Retry-After` and a `Status`.
 * In memory, per replica: it slows a leaked operator token or a runaway script down; it is not
 * a quota shared across replicas.
 */
@Injectable()
export class TokenRateLimitGuard implements CanActivate {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;
  private readonly perMs: number;

  constructor(@Inject(API_ENV) env: ApiEnv) {
    this.burst = env.TOKEN_RATE_BURST;
    this.perMs = env.TOKEN_RATE_PER_MINUTE / 60_000;
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const client = request.principal ? `identity:${request.principal.name}` : `ip:${request.ip}`;
    const now = Date.now();
    const bucket = this.refill(client, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return true;
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
    void http.getResponse<FastifyReply>().header('retry-after', String(retryAfter));
    throw StatusError.of(
      'TooManyRequests',
      `too many token requests: at most ${this.burst} at once, then ` +
        `${this.perMs * 60_000} per minute; retry in ${retryAfter} s`,
    );
  }

  private refill(client: string, now: number): Bucket {
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= MAX_TRACKED_CLIENTS) this.forgetFull(now);
      bucket = { tokens: this.burst, updatedAt: now };
      this.buckets.set(client, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.updatedAt) * this.perMs);
    bucket.updatedAt = now;
    return bucket;
  }

  private forgetFull(now: number): void {
    for (const [client, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.perMs >= this.burst) {
        this.buckets.delete(client);
      }
    }
  }
}
