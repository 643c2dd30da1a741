import { CanonicalJsonError, canonicalize } from '../json/canonical-json.ts';
import { isJsonObject, type JsonObject, type JsonValue, setJsonKey } from '../json/json-value.ts';
import type { ToolDeclarationInput } from '../resources/mediation-policy.ts';
import type { FunctionParts } from './request-tool.ts';

/** A replacement declaration from a policy, whatever form it was written in. */
export function replacementParts(tool: ToolDeclarationInput): FunctionParts {
  const source = 'function' in tool ? tool.function : tool;
  const parts: FunctionParts = { name: source.name };
  if (source.description !== undefined) parts.description = source.description;
  const parameters =
    'input_schema' in source && source.input_schema !== undefined
      ? source.input_schema
      : source.parameters;
  if (parameters !== undefined) parts.parameters = parameters;
  return parts;
}

/** `description_append` as Wardwright does it: after a blank line, or alone. */
export function appendDescription(existing: string | undefined, suffix: string): string {
  return existing ? `${existing}\n\n${suffix}` : suffix;
}

/**
 * Deep-merges a tightening fragment into a JSON Schema: objects merge key by key, `required`
 * arrays union (order kept), anything else is replaced by the fragment's value.
 */
export function mergeSchema(base: JsonObject | undefined, fragment: JsonObject): JsonObject {
  const out: JsonObject = { ...(base ?? {}) };
  for (const [key, value] of Object.entries(fragment)) {
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    if (key === 'required' && Array.isArray(current) && Array.isArray(value)) {
      setJsonKey(out, key, [...current, ...value.filter((v) => !current.includes(v))]);
    } else if (isJsonObject(current) && isJsonObject(value)) {
      setJsonKey(out, key, mergeSchema(current, value));
    } else {
      setJsonKey(out, key, value);
    }
  }
  return out;
}

/** Canonical form, or undefined when the value is not I-JSON (lone surrogates, …). */
export function tryCanonicalize(value: JsonValue): string | undefined {
  try {
    return canonicalize(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError) return undefined;
    throw error;
  }
}
