/**
 * Errors the spool raises. They are gateway-local (not core domain errors): the gateway maps
 * `SpoolFullError` and `SpoolFailedError` to a 503 for the agent — the request is refused rather
 * than answered without a durable receipt.
 */

/**
 * `fullPolicy: 'reject'` and unshipped receipts already fill `maxBytes` — or the disk is below
 * `minFreeBytes` (`disk` says so). Retryable later.
 */
export class SpoolFullError extends Error {
  constructor(
    /** Bytes of unacknowledged records when the append was refused. */
    readonly bytes: number,
    readonly maxBytes: number,
    readonly disk?: string,
  ) {
    super(
      disk
        ? `receipt spool is full: ${disk}`
        : `receipt spool is full (${bytes} of ${maxBytes} bytes unshipped)`,
    );
    this.name = 'SpoolFullError';
  }
}

/** Another live process owns the spool directory. */
export class SpoolLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holderPid: number | null,
    detail = 'another gateway process is using it',
  ) {
    super(
      `receipt spool ${dir} is locked${holderPid === null ? '' : ` by pid ${holderPid}`}: ${detail}`,
    );
    this.name = 'SpoolLockedError';
  }
}

/**
 * Bytes that a crash cannot explain: a bad record or header anywhere but the tail of the newest
 * segment, or a gap in the sequence. The spool refuses to open rather than skip receipts
 * silently; an operator decides (the named file can be moved aside).
 */
export class SpoolCorruptError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`receipt spool file ${file} is corrupt at byte ${offset}: ${detail}`);
    this.name = 'SpoolCorruptError';
  }
}

/**
 * A write or fsync failed. After a failed fsync the kernel may have dropped the dirty pages, so
 * nothing written since the last good fsync can be trusted: the spool stops accepting appends
 * (like PostgreSQL after an fsync failure) and a restart re-validates the files.
 */
export class SpoolFailedError extends Error {
  constructor(cause: unknown) {
    super(
      `receipt spool stopped after an I/O error: ${cause instanceof Error ? cause.message : cause}`,
      { cause },
    );
    this.name = 'SpoolFailedError';
  }
}

export class SpoolClosedError extends Error {
  constructor() {
    super('receipt spool is closed');
    this.name = 'SpoolClosedError';
  }
}
