import { type FieldCause, ValidationError } from '../../errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import { RECEIPT_LIMITS, receiptTextProblem } from '../../receipt/receipt-limits.ts';
import type { RequestTool } from '../request-tool.ts';

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

  /** How many problems were found so far. */
  get count(): number {
    return this.causes.length;
  }
}

/**
 * What an adapter reads from a request's `tools` array, remembered per array when the array is
 * frozen: {@link RequestParser} hands out the same deep-frozen array for a tool list it has seen
 * before, and agents resend theirs on every turn. A frozen array cannot change, so what was read
 * from it still holds. A list with problems is read (and its problems reported) every time.
 */
export class ToolListMemo {
  private readonly lists = new WeakMap<object, ReadonlyArray<RequestTool>>();

  /**
   * `read()`'s tools, or a copy of what it gave for the frozen array `body[key]` before
   * (`tools`, or OpenAI's legacy `functions`).
   */
  read(
    body: JsonObject,
    problems: RequestProblems,
    read: () => RequestTool[],
    key: 'tools' | 'functions' = 'tools',
  ): RequestTool[] {
    const list = body[key];
    const frozen = Array.isArray(list) && Object.isFrozen(list);
    if (frozen) {
      const known = this.lists.get(list);
      if (known !== undefined) return [...known];
    }
    const before = problems.count;
    const tools = read();
    if (frozen && problems.count === before) {
      this.lists.set(
        list,
        tools.map((tool) => Object.freeze(tool)),
      );
    }
    return tools;
  }
}

/** `body[key]` (`tools` by default) as an array of objects, recording problems for anything else. */
export function readToolArray(
  body: JsonObject,
  problems: RequestProblems,
  key: 'tools' | 'functions' = 'tools',
): JsonObject[] {
  const tools = body[key];
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) {
    problems.add(key, 'must be an array');
    return [];
  }
  if (tools.length > RECEIPT_LIMITS.tools) {
    // Every tool lands in the receipt: a list no receipt could hold is refused, not forwarded.
    problems.add('tools', `must hold at most ${RECEIPT_LIMITS.tools} tools`);
    return [];
  }
  const out: JsonObject[] = [];
  tools.forEach((tool, index) => {
    if (isJsonObject(tool)) out.push(tool);
    else problems.add(`${key}[${index}]`, 'must be an object');
  });
  return out;
}

/**
 * A name the receipt records (tool and MCP server names): a non-empty string of at most
 * `max` code units, so the receipt can always hold it.
 */
export function nonEmptyString(
  value: JsonValue | undefined,
  field: string,
  problems: RequestProblems,
  max: number = RECEIPT_LIMITS.toolName,
): string | undefined {
  if (typeof value === 'string' && value.length > 0) {
    const problem = receiptTextProblem(value, max);
    if (problem === undefined) return value;
    problems.add(field, problem);
    return undefined;
  }
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
