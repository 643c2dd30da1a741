import { type FieldCause, ValidationError } from '../../errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';

/** Collects field errors while reading a request, then throws them all at once. */
export class RequestProblems {
  private readonly causes: FieldCause[] = [];
  constructor(private readonly kind: string) {}

  add(field: string, message: string): void {
    this.causes.push({ field, message });
  }

  throwIfAny(): void {
    if (this.causes.length > 0) throw new ValidationError(this.kind, this.causes);
  }
}

/** `body.tools` as an array of objects, recording problems for anything else. */
export function readToolArray(body: JsonObject, problems: RequestProblems): JsonObject[] {
  const tools = body.tools;
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) {
    problems.add('tools', 'must be an array');
    return [];
  }
  const out: JsonObject[] = [];
  tools.forEach((tool, index) => {
    if (isJsonObject(tool)) out.push(tool);
    else problems.add(`tools[${index}]`, 'must be an object');
  });
  return out;
}

export function nonEmptyString(
  value: JsonValue | undefined,
  field: string,
  problems: RequestProblems,
): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value;
  problems.add(field, value === undefined ? 'is required' : 'must be a non-empty string');
  return undefined;
}

/** Shallow copy of `obj` with `key` set, or removed when `value` is undefined. */
export function withKey(obj: JsonObject, key: string, value: JsonValue | undefined): JsonObject {
  const copy = { ...obj };
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
}
