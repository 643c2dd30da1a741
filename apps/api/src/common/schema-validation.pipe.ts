import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { formatFieldPath } from '@toolgate/core';
import { z } from 'zod';
import { StatusError } from './api-errors.ts';

/**
 * Bodies nested deeper than this are refused before validation: recursive validation, cloning
 * and hashing overflow the stack (a 500) at a few thousand levels; no real document comes close.
 */
export const MAX_BODY_DEPTH = 256;

/**
 * Validates every `@Body/@Query/@Param({ schema })` with its zod schema. A body that breaks its
 * schema is `422 Invalid`, a bad query or path parameter `400 BadRequest`; both name each
 * failing field (`spec.rules[2].match.name`, `limit`).
 */
@Injectable()
export class SchemaValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const schema = metadata.schema;
    if (!(schema instanceof z.ZodType)) return value;
    if (metadata.type === 'body' && nestsDeeperThan(value, MAX_BODY_DEPTH)) {
      throw StatusError.of('BadRequest', `request body nests deeper than ${MAX_BODY_DEPTH} levels`);
    }
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const where = metadata.type === 'body' ? '' : `${metadata.type} `;
    const causes = result.error.issues.map((issue) => ({
      field: formatFieldPath(issue.path),
      message: issue.message,
    }));
    const summary = causes.map((c) => `${where}${c.field}: ${c.message}`).join('; ');
    throw StatusError.of(
      metadata.type === 'body' ? 'Invalid' : 'BadRequest',
      `invalid ${metadata.type === 'body' ? 'request body' : metadata.type}: ${summary}`,
      causes,
    );
  }
}

/** Iterative, so that a body nested a million levels deep cannot overflow the stack here. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}
