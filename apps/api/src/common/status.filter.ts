import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { type Status, type StatusReason, statusOf } from '@toolgate/contract';
import { redactSecrets, ToolgateError, ValidationError } from '@toolgate/core';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { StatusError } from './api-errors.ts';

const HTTP_REASONS: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'BadRequest',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'BadRequest',
  422: 'Invalid',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/** Maps every error, once, to a Kubernetes `Status`; never leaks a stack trace. */
@Catch()
export class StatusFilter implements ExceptionFilter {
  constructor(private readonly log: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const status = toStatus(error);
    if (status.code >= 500) this.log.error({ err: error }, 'request failed');
    if (reply.sent) return;
    reply.status(status.code).header('content-type', 'application/json').send(status);
  }
}

export function toStatus(error: unknown): Status {
  if (error instanceof StatusError) return error.status;
  if (error instanceof ValidationError) {
    return statusOf('Invalid', error.message, { kind: error.kind, causes: error.causes });
  }
  if (error instanceof ToolgateError) {
    const details: Status['details'] = {};
    if ('kind' in error && typeof error.kind === 'string') details.kind = error.kind;
    if ('resourceName' in error && typeof error.resourceName === 'string') {
      details.name = error.resourceName;
    }
    return statusOf(error.reason, error.message, details);
  }
  if (isDatabaseUnavailable(error)) {
    return statusOf('ServiceUnavailable', 'the database is unavailable; retry shortly');
  }
  if (isUnstorableText(error)) {
    return statusOf('BadRequest', 'strings must not contain U+0000 (NUL)');
  }
  const code = httpCode(error);
  if (code !== undefined && code < 500) {
    const reason = HTTP_REASONS[code] ?? 'BadRequest';
    // Fastify's and Nest's messages may quote the URL (`Cannot GET /x?token=…`).
    return statusOf(reason, redactSecrets(publicMessage(error, code)));
  }
  return statusOf('InternalError', 'internal error');
}

function httpCode(error: unknown): number | undefined {
  if (error instanceof HttpException) return error.getStatus();
  const candidate = (error as { statusCode?: unknown })?.statusCode;
  return typeof candidate === 'number' ? candidate : undefined;
}

/** Fastify's and Nest's own messages for client errors (malformed JSON, too large, …). */
function publicMessage(error: unknown, code: number): string {
  if (code === 413) return 'request body is too large';
  if (error instanceof HttpException) {
    const body = error.getResponse();
    if (typeof body === 'string') return body;
    const message = (body as { message?: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : String(message ?? error.message);
  }
  const message = (error as Error).message ?? 'bad request';
  return message.startsWith('Body') || message.startsWith('Unexpected')
    ? `malformed request body: ${message}`
    : message;
}

/**
 * PostgreSQL cannot hold U+0000 in text (22021) or jsonb (22P05); with UTF-8 strings from JSON
 * nothing else raises these, so the input is at fault, wherever it reached a query.
 */
function isUnstorableText(error: unknown): boolean {
  return /\b(22021|22P05)\b/.test((error as Error)?.message ?? '');
}

/** Driver adapter error kinds that mean "the database is not there right now". */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'TooManyConnections',
  'SocketTimeout',
  'TransactionAlreadyClosed',
]);

/**
 * Connection-level failures: PostgreSQL restarting, unreachable or out of connections. They
 * reach us raw from node-postgres, or wrapped by Prisma (a `P1001`, or a known request error
 * whose driver cause is one of the kinds above), in the middle of any query or transaction.
 */
function isDatabaseUnavailable(error: unknown): boolean {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: { kind?: string } } } })?.meta
    ?.driverAdapterError?.cause;
  if (cause?.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
  const text = `${(error as { code?: string })?.code ?? ''} ${(error as Error)?.message ?? ''}`;
  return /ECONNREFUSED|ECONNRESET|EPIPE|\b(08\d{3}|57P0[123]|53300)\b|Connection terminated|is not queryable|server closed the connection|terminating connection|P1001|P1017|Can't reach database/i.test(
    text,
  );
}
