import type { McpSession } from './mcp-session.ts';

export interface SessionRegistryOptions {
  /** A session unused for this long is closed (its upstream session too). */
  idleMs: number;
  /** Most sessions open at once; past it a new session is refused (503), not an old one evicted. */
  maxSessions: number;
  onCount?: (open: number) => void;
  now?: () => number;
}

/**
 * The gateway's open MCP sessions by `Mcp-Session-Id`. Bounded in number; idle ones are swept
 * (an agent using an expired or unknown id gets 404 and re-initializes, as the spec says).
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  /** Sessions being opened: counted against the bound before they have an id. */
  private opening = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: SessionRegistryOptions) {
    this.now = options.now ?? Date.now;
    const every = Math.max(50, Math.min(30_000, Math.floor(options.idleMs / 4)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Reserves room for a session being opened; false when the gateway holds too many. */
  reserve(): boolean {
    if (this.sessions.size + this.opening >= this.options.maxSessions) return false;
    this.opening++;
    return true;
  }

  /** Gives back a reservation (the session opened, or failed to). */
  release(): void {
    this.opening = Math.max(0, this.opening - 1);
  }

  add(id: string, session: McpSession): void {
    this.sessions.set(id, session);
    this.options.onCount?.(this.sessions.size);
  }

  /** The live session of this id, its idle clock restarted; undefined when unknown or expired. */
  use(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (this.now() - session.lastUsed > this.options.idleMs) {
      void this.close(id);
      return undefined;
    }
    session.lastUsed = this.now();
    return session;
  }

  /** Every open session (a new bundle is compared with what each was served). */
  open(): IterableIterator<McpSession> {
    return this.sessions.values();
  }

  /** Forgets the session (the transport closed it). */
  forget(id: string): void {
    if (this.sessions.delete(id)) this.options.onCount?.(this.sessions.size);
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.forget(id);
    await session.close();
  }

  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  private async sweep(): Promise<void> {
    const cutoff = this.now() - this.options.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastUsed < cutoff) await this.close(id);
    }
  }
}
