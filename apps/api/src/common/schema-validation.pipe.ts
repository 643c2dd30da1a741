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
    // No body (or an empty one) reaches here as undefined: refused by name, not as a type error.
    if (metadata.type === 'body' && value === undefined && !schema.safeParse(undefined).success) {
      throw StatusError.of('BadRequest', 'a JSON request body is required', [
        { field: '(root)', message: 'request body is required' },
      ]);
    }
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

/**
 * Iterative, so that a body nested a million levels deep cannot overflow the stack here. Only
 * objects and arrays are queued (a receipt batch has some 100,000 values, most of them leaves).
 */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const nodes: object[] = [];
  const depths: number[] = [];
  const queue = (child: unknown, depth: number) => {
    if (typeof child === 'object' && child !== null) {
      nodes.push(child);
      depths.push(depth);
    }
  };
  queue(value, 0);
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= max) return true;
    for (const child of Object.values(node)) queue(child, depth + 1);
  }
  return false;
}
