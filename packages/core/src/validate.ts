import type { z } from 'zod';
import { type FieldCause, formatFieldPath, ValidationError } from './errors.ts';

/** zod issues → field causes with Kubernetes-style paths, optionally under a prefix. */
export function issuesToCauses(
  issues: ReadonlyArray<z.core.$ZodIssue>,
  prefix: ReadonlyArray<PropertyKey> = [],
): FieldCause[] {
  return issues.map((issue) => ({
    field: formatFieldPath([...prefix, ...issue.path]),
    message: issue.message,
  }));
}

/**
 * Parses `input` with `schema`, or throws a {@link ValidationError} naming every failing field.
 * `prefix` places the paths inside a larger document (e.g. `['spec']`).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  kind: string,
  prefix: ReadonlyArray<PropertyKey> = [],
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(kind, issuesToCauses(result.error.issues, prefix));
  return result.data;
}
