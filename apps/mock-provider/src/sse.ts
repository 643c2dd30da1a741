/** One server-sent event; `data` is JSON-encoded unless it is already a string (`[DONE]`). */
export interface SseEvent {
  event?: string;
  data: unknown;
}

export function encodeSse({ event, data }: SseEvent): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

/** Text deltas the way models emit them: a word and the whitespace after it. */
export function splitText(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * JSON arguments in several fragments (at least two when there are two characters), so a
 * consumer that must hold a tool call until it is complete is really exercised.
 */
export function splitFragments(json: string): string[] {
  const size = Math.min(16, Math.max(1, Math.ceil(json.length / 4)));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces;
}
