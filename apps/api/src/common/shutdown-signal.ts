import { Injectable, type OnModuleDestroy } from '@nestjs/common';

/**
 * Aborted when the application starts closing, so long-lived responses (watch streams, bundle
 * long-polls) end instead of holding connections open — the HTTP server can then close.
 */
@Injectable()
export class ShutdownSignal implements OnModuleDestroy {
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A signal that fires on `signal` or on shutdown, whichever first. */
  combine(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, this.controller.signal]);
  }

  onModuleDestroy(): void {
    this.controller.abort();
  }
}
