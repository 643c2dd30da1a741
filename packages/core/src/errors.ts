/**
 * Typed domain errors. Everything that can go wrong with user input surfaces as one of these,
 * never as an exception from deep inside; apps map them once to a Kubernetes `Status`.
 */

/** One failing field: a dotted path such as `spec.rules[2].match.name`, and why it failed. */
export interface FieldCause {
  field: string;
  message: string;
}

export abstract class ToolgateError extends Error {
  abstract readonly reason: 'Invalid' | 'BadRequest' | 'NotFound' | 'Conflict' | 'AlreadyExists';
  abstract readonly code: number;
}

/** Input that is well-formed JSON but breaks the schema (HTTP 422). */
export class ValidationError extends ToolgateError {
  readonly reason = 'Invalid';
  readonly code = 422;
  constructor(
    readonly kind: string,
    readonly causes: FieldCause[],
  ) {
    super(`${kind} is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join('; ')}`);
    this.name = 'ValidationError';
  }
}

/**
 * A provider request using a feature the gateway cannot mediate (Anthropic message threads):
 * refused with the field named, and with the machine-readable `details` the provider itself
 * would send for an unsupported request, so the official SDK can fall back by itself.
 */
export class UnsupportedRequestError extends ValidationError {
  constructor(
    kind: string,
    causes: FieldCause[],
    /** The provider error's `details` (Anthropic `error.details`), flat values only. */
    readonly providerDetails: Record<string, string | string[]>,
  ) {
    super(kind, causes);
    this.name = 'UnsupportedRequestError';
  }
}

/** Input that cannot be read at all: not JSON/YAML, wrong top-level shape (HTTP 400). */
export class BadRequestError extends ToolgateError {
  readonly reason = 'BadRequest';
  readonly code = 400;
  constructor(message: string) {
    super(message);
    this.name = 'BadRequestError';
  }
}

export class NotFoundError extends ToolgateError {
  readonly reason = 'NotFound';
  readonly code = 404;
  constructor(
    readonly kind: string,
    readonly resourceName: string,
  ) {
    super(`${kind} "${resourceName}" not found`);
    this.name = 'NotFoundError';
  }
}

/** A write based on a stale `resourceVersion`, or a conflicting state change (HTTP 409). */
export class ConflictError extends ToolgateError {
  readonly reason = 'Conflict';
  readonly code = 409;
  constructor(
    readonly kind: string,
    readonly resourceName: string,
    detail = 'the object has been modified; apply your changes to the latest version and try again',
  ) {
    super(`Operation cannot be fulfilled on ${kind} "${resourceName}": ${detail}`);
    this.name = 'ConflictError';
  }
}

export class AlreadyExistsError extends ToolgateError {
  readonly reason = 'AlreadyExists';
  readonly code = 409;
  constructor(
    readonly kind: string,
    readonly resourceName: string,
  ) {
    super(`${kind} "${resourceName}" already exists`);
    this.name = 'AlreadyExistsError';
  }
}

/** Renders a path of keys and indices the Kubernetes way: `spec.rules[2].match.name`. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}
