import { isJsonObject } from '../json/json-value.ts';
import type { ResponseEvidence } from '../receipt/receipt-schema.ts';
import { enforceGeminiChunk, newGeminiResponseState } from '../response/gemini-response.ts';
import { sanitizeProviderError } from '../response/provider-error.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { driveStreamMediator, type SseEvent, type StreamMediator, serializeSse } from './sse.ts';

/**
 * Mediates a Gemini `streamGenerateContent?alt=sse` stream, where every `data:` event is a whole
 * `GenerateContentResponse` chunk (no event names, no `[DONE]`: the stream ends when the
 * connection does).
 *
 * Gemini's API sends each `functionCall` part whole, in one chunk (streamed arguments are a
 * Vertex AI feature the request cannot ask for through Toolgate, and a fragment that arrives
 * anyway is withheld: see `PARTIAL_CALL_REASON`), so a chunk is judged the moment it arrives
 * and nothing is held across chunks: allowed calls go on renamed back, withheld calls are
 * removed from their chunk (a text part explains a call-time rule's decision), and built-in tool
 * evidence of a hidden tool is stripped, exactly as {@link enforceGeminiChunk} does for a whole
 * body. Chunks holding only text pass through byte for byte without being parsed; each chunk
 * stays a complete `GenerateContentResponse`, one `data:` line, which is all the
 * `@google/genai` SDK's stream reader accepts. An `error` chunk passes with only its error
 * object, so an error is no way around the policy.
 */
export function createGeminiStreamMediator(ctx: ResponseContext): StreamMediator {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  const state = newGeminiResponseState();

  function handleEvent(event: SseEvent, out: string[]) {
    if (event.comment !== undefined || event.data === '' || certainlyNoWork(event.data)) {
      out.push(serializeSse(event));
      return;
    }
    const chunk = parseJson(event.data);
    if (isJsonObject(chunk) && chunk.error != null) {
      out.push(serializeSse({ ...event, data: sanitizeProviderError('gemini', 500, event.data) }));
      return;
    }
    const next = enforceGeminiChunk(chunk, ctx, evidence, state);
    out.push(serializeSse(next === chunk ? event : { ...event, data: JSON.stringify(next) }));
  }

  return driveStreamMediator(evidence, handleEvent, () => {});
}

/** What makes a chunk need parsing: a call, built-in tool evidence, an error, an escape. */
const WORK_MARKERS = [
  'functionCall',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
  'groundingMetadata',
  'urlContextMetadata',
  '"error"',
  '\\u',
];

/**
 * Whether an event's text shows, without parsing it, that enforcement has nothing to do: none
 * of the keys it acts on appears. Exact where it says `true`: without a `\u` escape a key can
 * only be written literally, so a key missing from the text is missing from the chunk. Text
 * deltas, the bulk of a stream, pass without a parse.
 */
export function certainlyNoWork(data: string): boolean {
  for (const marker of WORK_MARKERS) if (data.includes(marker)) return false;
  return true;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
