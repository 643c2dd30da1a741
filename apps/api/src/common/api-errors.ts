import { type Status, type StatusCause, type StatusReason, statusOf } from '@toolgate/contract';

/** An error that is already a Kubernetes Status (auth, gone, unavailable, …). */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
    this.name = 'StatusError';
  }

  static of(reason: StatusReason, message: string, causes?: StatusCause[]): StatusError {
    return new StatusError(statusOf(reason, message, causes ? { causes } : undefined));
  }
}
