/** One server-sent event: its type (`message` when unnamed) and its data lines joined. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * An incremental parser of `text/event-stream` (the WHATWG "event stream interpretation"): text
 * is pushed as it arrives, in chunks cut anywhere (mid-line, mid-CRLF), and each complete event is
 * returned once its blank line has arrived. Lines end in LF, CRLF or CR; `:` lines are comments;
 * `retry` and unknown fields are ignored; an event without data is not dispatched. Replaces the
 * SDK client's `TextDecoderStream` → `EventSourceParserStream` pipeline on the hot path, where the
 * web streams cost more than the parsing.
 *
 * `maxPending` bounds what one event may hold before its blank line (the caller's byte bound
 * covers the stream; this one covers a single event that never ends).
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private pendingCR = false;
  private first = true;

  push(text: string): SseEvent[] {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR ending the last chunk and an LF starting this one are one line ending.
    if (this.pendingCR) {
      this.pendingCR = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    const events: SseEvent[] = [];
    let input = this.buffer + text;
    let start = 0;
    for (;;) {
      const lf = input.indexOf('\n', start);
      const cr = input.indexOf('\r', start);
      let end: number;
      if (lf === -1 && cr === -1) break;
      if (cr === -1 || (lf !== -1 && lf < cr)) end = lf;
      else end = cr;
      const line = input.slice(start, end);
      if (input.charCodeAt(end) === 13) {
        if (end + 1 === input.length) {
          this.pendingCR = true;
          start = end + 1;
          this.line(line, events);
          break;
        }
        start = input.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      } else start = end + 1;
      this.line(line, events);
    }
    input = input.slice(start);
    this.buffer = input;
    return events;
  }

  /** Characters held for the event in progress (its data so far and the unfinished line). */
  get pending(): number {
    let size = this.buffer.length;
    for (const line of this.data) size += line.length;
    return size;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) {
        events.push({
          event: this.event === '' ? 'message' : this.event,
          data: this.data.join('\n'),
          ...(this.id !== undefined ? { id: this.id } : {}),
        });
      }
      this.data = [];
      this.event = '';
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' a comment (keep-alives)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }
}
