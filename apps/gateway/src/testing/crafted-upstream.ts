import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: JSON (`json`) or a raw SSE text (`sse`), with its status. */
export type CraftedAnswer =
  | { status?: number; json: unknown }
  | { status?: number; sse: string }
  | { status: number; text: string; contentType?: string };

export interface CraftedUpstream {
  url: string;
  /** Bodies of the requests received, parsed, oldest first. */
  readonly requests: unknown[];
  /** The answer to the next request (then the one after, …). */
  answer(...answers: CraftedAnswer[]): void;
  close(): Promise<void>;
}

/**
 * A provider that answers exactly what the test scripts, byte for byte, on either path
 * (`/v1/chat/completions`, `/v1/messages`): for shapes the mock provider never produces — legacy
 * `function_call`, blocks in `message_start`, tool calls in error bodies. A request with no
 * scripted answer left gets a 500.
 */
export async function startCraftedUpstream(): Promise<CraftedUpstream> {
  const queue: CraftedAnswer[] = [];
  const requests: unknown[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
      const next = queue.shift();
      if (next === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"no crafted answer left","type":"api_error"}}');
      } else if ('sse' in next) {
        response.writeHead(next.status ?? 200, { 'content-type': 'text/event-stream' });
        response.end(next.sse);
      } else if ('json' in next) {
        response.writeHead(next.status ?? 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(next.json));
      } else {
        response.writeHead(next.status, { 'content-type': next.contentType ?? 'text/plain' });
        response.end(next.text);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (...answers) => queue.push(...answers),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** SSE text of Anthropic events: `event: type` + `data: {type, ...}` per event. */
export function anthropicSse(
  events: ReadonlyArray<{ type: string; [key: string]: unknown }>,
): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

/** SSE text of OpenAI chunks, ending in `[DONE]`. */
export function openAISse(chunks: ReadonlyArray<object>): string {
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}
