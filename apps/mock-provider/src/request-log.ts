import type { IncomingHttpHeaders } from 'node:http';

/** A provider request as the mock received it, minus secrets. */
export interface LoggedRequest {
  /** 1, 2, 3… in order of arrival, over the life of the server. */
  seq: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** Headers whose values are secrets: the log keeps that they were sent, never what they were. */
const SECRET_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'proxy-authorization',
  'cookie',
]);
export const REDACTED = '[redacted]';

export function redactHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value,
    ]),
  );
}

/** The last `capacity` requests, oldest first. */
export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  #seq = 0;

  constructor(private readonly capacity = 1000) {}

  add(request: Omit<LoggedRequest, 'seq' | 'headers'> & { headers: IncomingHttpHeaders }): void {
    this.#entries.push({ seq: ++this.#seq, ...request, headers: redactHeaders(request.headers) });
    if (this.#entries.length > this.capacity) this.#entries.shift();
  }

  last(limit = this.capacity): LoggedRequest[] {
    return limit > 0 ? this.#entries.slice(-limit) : [];
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
