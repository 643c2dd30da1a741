import type { ServerResponse } from 'node:http';
import { responsesStreamFailure, type Surface } from '@toolgate/core';
import { providerErrorJson } from './provider-errors.ts';
import type { UpstreamBody } from './upstream-answer.ts';

/**
 * Writes `mediate(chunk)` to the agent for every chunk of the provider's stream, in the same
 * turn it arrives (no stream or async iterator in between: on the path of every token). The
 * provider is paused while the agent's socket is full. Resolves at the stream's end; rejects
 * with its error, or with what `mediate` threw.
 */
export function relayStream(
  body: UpstreamBody,
  reply: ServerResponse,
  mediate: (chunk: Uint8Array) => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const resume = () => body.resume();
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      reply.off('drain', resume);
      if (error) reject(error);
      else resolve();
    };
    reply.on('drain', resume);
    body.consume({
      data(chunk) {
        if (settled) return true;
        let out: string;
        try {
          out = mediate(chunk);
        } catch (error) {
          settle(error as Error);
          body.destroy(error as Error);
          return true;
        }
        return out === '' || reply.write(out);
      },
      end: () => settle(),
      error: settle,
    });
  });
}

/** The error event each provider sends when a stream fails. */
export function streamErrorEvent(surface: Surface, message: string): string {
  if (surface === 'openai-responses') return responsesStreamFailure(message, 'stream_failed');
  const body = providerErrorJson(surface, 502, message);
  return surface === 'anthropic-messages' ? `event: error\ndata: ${body}\n\n` : `data: ${body}\n\n`;
}
