import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { formatFieldPath } from '@toolgate/core';
import { z } from 'zod';
import { StatusError } from './api-errors.ts';

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
