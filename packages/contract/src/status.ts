import { z } from 'zod';

/** Kubernetes `Status` reasons Toolgate answers with. */
export const StatusReason = z.enum([
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'Conflict',
  'AlreadyExists',
  'Gone',
  'Invalid',
  'RequestEntityTooLarge',
  'TooManyRequests',
  'InternalError',
  'ServiceUnavailable',
]);
export type StatusReason = z.infer<typeof StatusReason>;

export const StatusCause = z.object({
  /** Dotted path of the failing field, e.g. `spec.rules[2].match.name`. */
  field: z.string(),
  message: z.string(),
  reason: z.string().optional(),
});
export type StatusCause = z.infer<typeof StatusCause>;

/** Every error the API answers with (Kubernetes `Status`). */
export const Status = z.object({
  kind: z.literal('Status'),
  apiVersion: z.literal('v1'),
  status: z.literal('Failure'),
  code: z.number().int(),
  reason: StatusReason,
  message: z.string(),
  details: z
    .object({
      kind: z.string().optional(),
      name: z.string().optional(),
      causes: z.array(StatusCause).optional(),
    })
    .optional(),
});
export type Status = z.infer<typeof Status>;

export const STATUS_CODES: Record<StatusReason, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  AlreadyExists: 409,
  Gone: 410,
  Invalid: 422,
  RequestEntityTooLarge: 413,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
};

export function statusOf(
  reason: StatusReason,
  message: string,
  details?: Status['details'],
): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: STATUS_CODES[reason],
    reason,
    message,
    ...(details ? { details } : {}),
  };
}
