import {
  canonicalize,
  type FieldCause,
  type JsonObject,
  MCP_LIMITS,
  type McpObservationInput,
  McpToolName,
  mcpToolDefinition,
  mcpToolDefinitionHash,
  ValidationError,
} from '@toolgate/core';
import { StatusError } from '../common/api-errors.ts';

/** One tool of an observation as the API recomputed it: never the gateway's word for the hash. */
export interface ObservedDefinition {
  name: string;
  hash: string;
  definition: JsonObject;
}

/**
 * The definitions of an observation, each rebuilt with `mcpToolDefinition` (only the defining
 * keys) and hashed here. Refused whole, naming the field, when one is not a tool definition,
 * is too large (413), holds what PostgreSQL's jsonb cannot store (U+0000), or a name repeats.
 */
export function observedDefinitions(input: McpObservationInput): ObservedDefinition[] {
  const causes: FieldCause[] = [];
  const tooLarge: FieldCause[] = [];
  const seen = new Map<string, number>();
  const out: ObservedDefinition[] = [];
  input.tools.forEach((tool, i) => {
    const field = `tools[${i}].definition`;
    const name = McpToolName.safeParse(tool.definition.name);
    if (!name.success) {
      causes.push({ field: `${field}.name`, message: name.error.issues[0]?.message ?? 'invalid' });
      return;
    }
    const first = seen.get(name.data);
    if (first !== undefined) {
      causes.push({ field: `${field}.name`, message: `repeats tools[${first}] ("${name.data}")` });
      return;
    }
    seen.set(name.data, i);
    const definition = mcpToolDefinition(tool.definition);
    let text: string;
    try {
      text = canonicalize(definition);
    } catch (error) {
      causes.push({ field, message: `cannot be hashed: ${(error as Error).message}` });
      return;
    }
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MCP_LIMITS.definitionBytes) {
      tooLarge.push({
        field,
        message: `is ${bytes} bytes; at most ${MCP_LIMITS.definitionBytes} (canonical JSON)`,
      });
      return;
    }
    if (holdsNul(definition)) {
      causes.push({ field, message: 'must not contain U+0000' });
      return;
    }
    out.push({ name: name.data, hash: mcpToolDefinitionHash(definition), definition });
  });
  if (tooLarge.length > 0) {
    throw StatusError.of(
      'RequestEntityTooLarge',
      `McpObservation: ${tooLarge.map((c) => `${c.field} ${c.message}`).join('; ')}`,
      tooLarge,
    );
  }
  if (causes.length > 0) throw new ValidationError('McpObservation', causes);
  return out;
}

/** U+0000 in any string, key or value: jsonb has no way to store it. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, child]) => key.includes('\0') || holdsNul(child));
  }
  return false;
}
