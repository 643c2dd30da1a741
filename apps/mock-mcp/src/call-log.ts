/** One `tools/call` the server answered. */
export interface LoggedCall {
  seq: number;
  /** The MCP session it came in (`Mcp-Session-Id`). */
  session: string | undefined;
  tool: string;
  /** The arguments as received, or a stand-in when they were larger than the log keeps. */
  arguments: unknown;
}

/** Arguments above this many bytes of JSON are logged as their size only. */
export const LOGGED_ARGUMENTS_BYTES = 4096;

/**
 * The last `size` tool calls, oldest first, so a test or a benchmark can check what reached the
 * server (through which proxy). Bounded in entries and in bytes per entry.
 */
export class CallLog {
  private readonly entries: LoggedCall[] = [];
  private seq = 0;

  constructor(private readonly size = 1000) {}

  add(call: Omit<LoggedCall, 'seq' | 'arguments'> & { arguments: unknown }): void {
    const json = JSON.stringify(call.arguments ?? null);
    const bytes = Buffer.byteLength(json);
    this.entries.push({
      ...call,
      seq: ++this.seq,
      arguments: bytes <= LOGGED_ARGUMENTS_BYTES ? call.arguments : { truncated: true, bytes },
    });
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
  }

  /** The last `limit` calls (all kept ones without it), oldest first. */
  last(limit?: number): LoggedCall[] {
    return limit === undefined ? [...this.entries] : this.entries.slice(-limit);
  }

  /** How many calls were answered since the start (or the last `clear`), kept or not. */
  get total(): number {
    return this.seq;
  }

  clear(): void {
    this.entries.length = 0;
    this.seq = 0;
  }
}
