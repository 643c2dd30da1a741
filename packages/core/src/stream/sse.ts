import type { ResponseEvidence } from '../receipt/receipt-schema.ts';

/**
 * Incremental Server-Sent Events parser and serializer (WHATWG HTML, "Interpreting an event
 * stream"), for the gateway's streaming mediators. Pure: no I/O, no timers.
 *
 * Deliberate differences from a browser `EventSource`, because the gateway is a proxy that
 * re-emits what it parsed:
 * - comment lines are reported (as `{ data: '', comment }`, in order, as soon as the line is
 *   complete) instead of being ignored, so keep-alives reach the agent;
 * - `id` is reported only on the event whose block set it (not carried over to later events),
 *   and a block that sets only `id` or `retry` is reported too, so re-serializing does not
 *   duplicate or lose them;
 * - `end()` dispatches a final event that lacks its terminating blank line, as the `openai` and
 *   `@anthropic-ai/sdk` SSE decoders do, instead of discarding it.
 */

/** One dispatched event (or one comment line, when `comment` is set). */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
  retry?: number;
  comment?: string;
}

export interface SseParser {
  /**
   * Feeds the next piece of the stream and returns the events it completed. Text may be split
   * anywhere (mid-line, between `\r` and `\n`); bytes may be split inside a UTF-8 character.
   */
  push(chunk: string | Uint8Array): SseEvent[];
  /** Ends the stream: flushes a pending partial line and event. The parser is then reset. */
  end(): SseEvent[];
}

const LF = 10;

/** Creates an incremental SSE parser. Accepts text or UTF-8 bytes (decoded with `stream: true`). */
export function createSseParser(): SseParser {
  const decoder = new TextDecoder('utf-8');
  let bytesPending = false;
  let started = false;
  /** Text of the current line seen so far (no terminator yet). */
  let partial = '';
  /** The previous piece ended with `\r`: a `\n` at the start of the next one belongs to it. */
  let skipLF = false;
  let data: string[] = [];
  let eventType: string | undefined;
  let id: string | undefined;
  let retry: number | undefined;

  function dispatch(out: SseEvent[]): void {
    if (data.length > 0 || id !== undefined || retry !== undefined) {
      const event: SseEvent = { data: data.join('\n') };
      if (eventType) event.event = eventType;
      if (id !== undefined) event.id = id;
      if (retry !== undefined) event.retry = retry;
      out.push(event);
    }
    data = [];
    eventType = undefined;
    id = undefined;
    retry = undefined;
  }

  function processLine(line: string, out: SseEvent[]): void {
    if (line === '') {
      dispatch(out);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      out.push({ data: '', comment: stripSpace(line.slice(1)) });
      return;
    }
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : stripSpace(line.slice(colon + 1));
    switch (field) {
      case 'data':
        data.push(value);
        break;
      case 'event':
        eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) id = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) retry = Number(value);
        break;
      default:
        // Unknown fields are ignored (WHATWG).
        break;
    }
  }

  function feed(text: string, out: SseEvent[]): void {
    if (text === '') return;
    let pos = 0;
    if (!started) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) pos = 1;
    }
    if (skipLF) {
      skipLF = false;
      if (text.charCodeAt(pos) === LF) pos++;
    }
    const n = text.length;
    let nl = text.indexOf('\n', pos);
    let cr = text.indexOf('\r', pos);
    while (nl !== -1 || cr !== -1) {
      let end: number;
      let next: number;
      if (cr === -1 || (nl !== -1 && nl < cr)) {
        end = nl;
        next = nl + 1;
      } else {
        end = cr;
        if (cr + 1 < n) {
          next = text.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
        } else {
          next = n;
          skipLF = true;
        }
      }
      const line = partial === '' ? text.slice(pos, end) : partial + text.slice(pos, end);
      partial = '';
      processLine(line, out);
      pos = next;
      if (nl !== -1 && nl < pos) nl = text.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = text.indexOf('\r', pos);
    }
    if (pos < n) partial += text.slice(pos);
  }

  return {
    push(chunk) {
      const out: SseEvent[] = [];
      if (typeof chunk === 'string') {
        if (bytesPending) {
          bytesPending = false;
          feed(decoder.decode(), out);
        }
        feed(chunk, out);
      } else {
        bytesPending = true;
        feed(decoder.decode(chunk, { stream: true }), out);
      }
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      if (bytesPending) {
        bytesPending = false;
        feed(decoder.decode(), out);
      }
      if (partial !== '') {
        const line = partial;
        partial = '';
        processLine(line, out);
      }
      dispatch(out);
      started = false;
      skipLF = false;
      return out;
    },
  };
}

function stripSpace(value: string): string {
  return value.charCodeAt(0) === 32 ? value.slice(1) : value;
}

const LINE_BREAK = /\r\n|\r|\n/;
const HAS_LINE_BREAK = /[\r\n]/;

/**
 * Serializes one event as SSE text ending with the blank line that dispatches it:
 * `event: x\ndata: …\n\n`, one `data:` line per line of `data`. A comment-only event
 * (`{ data: '', comment }`) becomes `: comment\n\n`; an event that only sets `id`/`retry` gets no
 * `data:` line.
 */
export function serializeSse(event: SseEvent): string {
  if (
    event.comment === undefined &&
    event.event === undefined &&
    event.id === undefined &&
    event.retry === undefined &&
    !HAS_LINE_BREAK.test(event.data)
  ) {
    // The common case (one `data:` line, nothing else) without splitting.
    return `data: ${event.data}\n\n`;
  }
  let out = '';
  if (event.comment !== undefined) {
    for (const line of event.comment.split(LINE_BREAK)) out += `: ${line}\n`;
  }
  if (event.event !== undefined && event.event !== '') out += `event: ${event.event}\n`;
  if (event.id !== undefined) out += `id: ${event.id}\n`;
  if (event.retry !== undefined) out += `retry: ${event.retry}\n`;
  const dataless =
    event.data === '' &&
    (event.comment !== undefined || event.id !== undefined || event.retry !== undefined);
  if (!dataless) {
    for (const line of event.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  }
  return `${out}\n`;
}

/** Serializes a JSON event the way Anthropic sends them: `event: <type>\ndata: <json>\n\n`. */
export function serializeJsonSse(type: string | undefined, value: unknown): string {
  const json = JSON.stringify(value);
  return type ? `event: ${type}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}

/**
 * A streaming response mediator: fed the upstream SSE stream piece by piece, it returns the SSE
 * text to forward to the agent for each piece, and the evidence gathered so far.
 */
export interface StreamMediator {
  /** Feeds the next upstream piece (text or bytes); returns the SSE text to send now. */
  push(chunk: string | Uint8Array): string;
  /** Ends the upstream stream; returns whatever is still to send (pending calls, last event). */
  end(): string;
  /** What the receipt records about the response so far (a copy). */
  evidence(): ResponseEvidence;
}

/**
 * The driver both surfaces' mediators share: parses upstream SSE, hands each event to
 * `handleEvent` (which appends what to forward to `out`), lets `finish` release anything still
 * held at the end of the stream, and hands out copies of the evidence.
 */
export function driveStreamMediator(
  evidence: ResponseEvidence,
  handleEvent: (event: SseEvent, out: string[]) => void,
  finish: (out: string[]) => void,
): StreamMediator {
  const parser = createSseParser();
  const run = (events: SseEvent[]): string[] => {
    const out: string[] = [];
    for (const event of events) handleEvent(event, out);
    return out;
  };
  return {
    push(chunk) {
      return run(parser.push(chunk)).join('');
    },
    end() {
      const out = run(parser.end());
      finish(out);
      return out.join('');
    },
    evidence() {
      const copy: ResponseEvidence = {
        tool_calls: [...evidence.tool_calls],
        hosted_tool_events: [...evidence.hosted_tool_events],
      };
      if (evidence.finish_reason !== undefined) copy.finish_reason = evidence.finish_reason;
      return copy;
    },
  };
}

/**
 * An event's `data` as JSON (by `parse`: `JSON.parse` or an equivalent), or undefined when it is
 * empty or not JSON (passed on as it is).
 */
export function parseEventData(
  text: string,
  parse: (text: string) => unknown = JSON.parse,
): unknown {
  if (text === '') return undefined;
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}
