import { deepFreeze } from './deep-freeze.ts';
import { PROCESS_NONCE, rememberJsonText } from './json-text.ts';
import type { JsonValue } from './json-value.ts';
import { illFormedPath, jsonTextMayHoldLoneSurrogate } from './well-formed-text.ts';

/** How many distinct tool lists are kept, and the longest one worth keeping (characters). */
const MAX_LISTS = 16;
const MAX_LIST_CHARS = 1 << 20;

interface KnownList {
  text: string;
  value: ReadonlyArray<JsonValue>;
  /** Whether the list's text holds a `\uD8xx`-style escape (a lone surrogate may hide there). */
  escapes: boolean;
}

/** A parsed request and the first field holding a lone surrogate, if any. */
export interface CheckedRequest {
  body: unknown;
  /** `illFormedPathInJson(raw, body)`: the path of the first lone surrogate, or undefined. */
  illFormedPath: string | undefined;
}

/**
 * `JSON.parse` for agent requests, which resend the same tool list on every turn: most of a
 * request's text, and most of the cost of parsing it. When the top-level `tools` array of a
 * request is character for character one seen before, only the rest of the request is parsed
 * and `tools` is the earlier, deep-frozen value (whose JSON text is remembered, so mediation and
 * serialization reuse it too). The result equals `JSON.parse(raw)` in every case; a request
 * that is not valid JSON throws exactly what `JSON.parse(raw)` throws.
 *
 * Why the shortcut is exact: the known text is a complete JSON array (it was parsed on its
 * own), and an array's extent is fixed by its own characters, so where the request continues
 * with it, that is the whole value. The request is then parsed with a string marker in its
 * place; the parse succeeding with `tools` equal to the marker (which holds a random
 * per-process nonce no agent can write) proves the marker sat exactly at the value of the
 * `tools` key that `JSON.parse` keeps, so putting the array back gives what a full parse gives.
 * Anything else (a duplicate key, a scan that went astray on broken input) falls back to the
 * full parse.
 */
export class RequestParser {
  private readonly known: KnownList[] = [];
  private readonly marker = `\u0000toolgate-tools-${PROCESS_NONCE}`;
  private readonly markerText = JSON.stringify(this.marker);
  /** The top-level member whose object holds `tools` (and its key as JSON); none: the top level. */
  private readonly within: string | undefined;
  private readonly withinQuoted: string | undefined;

  /**
   * `within`: the `tools` array sits in the object of this top-level member (a Responses stream
   * event's `response`), not at the top level. The same argument holds one level down: the
   * marker found at `body[within].tools` is where `JSON.parse` keeps both keys.
   */
  constructor(options: { within?: string } = {}) {
    this.within = options.within;
    this.withinQuoted = options.within === undefined ? undefined : JSON.stringify(options.within);
  }

  parse(raw: string): unknown {
    return this.parseRequest(raw).body;
  }

  /**
   * `parse`, and the lone-surrogate check of `illFormedPathInJson(raw, body)` with the same
   * result: when the tool list is a known one whose text holds no surrogate escape, only the
   * text around it is scanned (a JSON string lies wholly inside the array or wholly outside it),
   * not its ~24 KB again on every request.
   */
  parseRequest(raw: string): CheckedRequest {
    const start = this.toolsStart(raw);
    if (start < 0 || raw.charCodeAt(start) !== OPEN_BRACKET) return checked(raw, JSON.parse(raw));
    const list = this.lookup(raw, start);
    if (!list) {
      const body: unknown = JSON.parse(raw);
      this.learn(raw, start);
      return checked(raw, body);
    }
    const before = raw.slice(0, start);
    const after = raw.slice(start + list.text.length);
    let body: unknown;
    try {
      body = JSON.parse(before + this.markerText + after);
    } catch {
      return checked(raw, JSON.parse(raw));
    }
    const holder = isObject(body) && this.within !== undefined ? body[this.within] : body;
    if (!isObject(holder) || holder.tools !== this.marker) return checked(raw, JSON.parse(raw));
    holder.tools = list.value as JsonValue[];
    const mayHold =
      list.escapes || jsonTextMayHoldLoneSurrogate(before) || jsonTextMayHoldLoneSurrogate(after);
    return { body, illFormedPath: mayHold ? illFormedPath(body) : undefined };
  }

  /** Where the `tools` array's text starts (at the top level, or in `within`'s object), or -1. */
  private toolsStart(raw: string): number {
    if (this.withinQuoted === undefined) return topLevelValueStart(raw, '"tools"');
    const holder = topLevelValueStart(raw, this.withinQuoted);
    if (holder < 0 || raw.charCodeAt(holder) !== OPEN_BRACE) return -1;
    return topLevelValueStart(raw, '"tools"', holder);
  }

  /** The known list the request continues with at `start`, moved to the front (LRU). */
  private lookup(raw: string, start: number): KnownList | undefined {
    // slice + === compares memory directly; startsWith walks character by character.
    const index = this.known.findIndex(
      (list) => raw.slice(start, start + list.text.length) === list.text,
    );
    if (index < 0) return undefined;
    const [list] = this.known.splice(index, 1) as [KnownList];
    this.known.unshift(list);
    return list;
  }

  /** After a full parse succeeded: remembers the array at `start` for the next requests. */
  private learn(raw: string, start: number): void {
    const end = valueEnd(raw, start);
    if (end < 0 || end - start > MAX_LIST_CHARS) return;
    // A copy of its own, not a slice that would keep this whole request alive.
    const text = JSON.parse(JSON.stringify(raw.slice(start, end))) as string;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    if (!Array.isArray(value)) return;
    const frozen = deepFreeze(value);
    // The text as sent may differ from JSON.stringify's (whitespace); remember the latter.
    rememberJsonText(frozen);
    this.known.unshift({ text, value: frozen, escapes: jsonTextMayHoldLoneSurrogate(text) });
    if (this.known.length > MAX_LISTS) this.known.pop();
  }
}

function checked(raw: string, body: unknown): CheckedRequest {
  return {
    body,
    illFormedPath: jsonTextMayHoldLoneSurrogate(raw) ? illFormedPath(body) : undefined,
  };
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipSpace(raw: string, i: number): number {
  while (i < raw.length && isSpace(raw.charCodeAt(i))) i++;
  return i;
}

/**
 * Where the value of the first top-level member whose key is written exactly `quotedKey`
 * starts, or -1 (of the object starting at `from`: 0 for the text's own top level). A lexical scan (strings and nesting), not a validation: the caller checks.
 */
export function topLevelValueStart(raw: string, quotedKey: string, from = 0): number {
  let i = skipSpace(raw, from);
  if (raw.charCodeAt(i) !== OPEN_BRACE) return -1;
  i++;
  for (;;) {
    i = skipSpace(raw, i);
    if (raw.charCodeAt(i) !== QUOTE) return -1;
    const keyEnd = stringEnd(raw, i);
    if (keyEnd < 0) return -1;
    const isWanted = keyEnd - i === quotedKey.length && raw.startsWith(quotedKey, i);
    i = skipSpace(raw, keyEnd);
    if (raw.charCodeAt(i) !== COLON) return -1;
    i = skipSpace(raw, i + 1);
    if (isWanted) return i;
    i = valueEnd(raw, i);
    if (i < 0) return -1;
    i = skipSpace(raw, i);
    if (raw.charCodeAt(i) !== COMMA) return -1;
    i++;
  }
}

/** The index just past the string starting at `i` (a quote), or -1 if it never ends. */
function stringEnd(raw: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = raw.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (raw.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index just past the value starting at `i`, or -1 where the text ends first. */
export function valueEnd(raw: string, i: number): number {
  const first = raw.charCodeAt(i);
  if (first === QUOTE) return stringEnd(raw, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let j = i;
    while (j < raw.length) {
      const code = raw.charCodeAt(j);
      if (code === QUOTE) {
        j = stringEnd(raw, j);
        if (j < 0) return -1;
        continue;
      }
      if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return -1;
  }
  let j = i;
  while (j < raw.length) {
    const code = raw.charCodeAt(j);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    j++;
  }
  return j === i ? -1 : j;
}
