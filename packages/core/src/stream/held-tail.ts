import type { ProviderSurface } from '../resources/vocabulary.ts';
import type { StreamMediator } from './sse.ts';

/**
 * The first event of a mediator's output an agent could act on: a released tool call, a finish
 * reason, the end of the turn. Matched on the SSE text the mediator produced, which is cheap
 * (text deltas, the bulk of a stream, are a few substring scans) and exact enough: these
 * patterns need a bare quote before a key, and a quote inside a JSON string is always escaped,
 * so text the model wrote can never match; a false match only starts holding earlier.
 */
const ACTIONABLE: Record<ProviderSurface, RegExp> = {
  'openai-chat':
    /"tool_calls"\s*:\s*\[|"function_call"\s*:\s*\{|"finish_reason"\s*:\s*"|^data: \[DONE\]/m,
  'anthropic-messages':
    /^event: (?:message_delta|message_stop)\s*$|"type"\s*:\s*"(?:tool_use|message_delta|message_stop)"/m,
  gemini: /"functionCall"\s*:\s*\{|"finishReason"\s*:\s*"/,
  // A released call the agent runs (or an MCP approval it answers), and the end of the response.
  'openai-responses':
    /"type"\s*:\s*"(?:function_call|custom_tool_call|computer_call|local_shell_call|shell_call|apply_patch_call|mcp_approval_request|response\.completed|response\.incomplete|response\.failed)"/,
};

/** Held output past which the stream is failed instead (a provider that never stops). */
const DEFAULT_MAX_HELD_CHARS = 16 * 1024 * 1024;

export class HeldTailTooLargeError extends Error {
  constructor(limit: number) {
    super(`upstream stream went on for more than ${limit} characters after its first tool call`);
    this.name = 'HeldTailTooLargeError';
  }
}

/**
 * Wraps a stream mediator so that everything from the first actionable event on is held back:
 * `push` returns only what comes before it (text deltas keep flowing as they arrive), and `end`
 * returns the held tail. The gateway sends that tail only once the request's receipt is durable,
 * so an agent never receives a tool call, a finish reason or `[DONE]` for a request that has no
 * receipt; if recording fails, it gets an error event instead of the tail.
 */
export function holdActionableTail(
  mediator: StreamMediator,
  surface: ProviderSurface,
  maxHeldChars = DEFAULT_MAX_HELD_CHARS,
): StreamMediator {
  const actionable = ACTIONABLE[surface];
  let held: string[] | undefined;
  let heldChars = 0;
  const hold = (text: string) => {
    heldChars += text.length;
    if (heldChars > maxHeldChars) throw new HeldTailTooLargeError(maxHeldChars);
    (held as string[]).push(text);
  };
  return {
    push(chunk) {
      const out = mediator.push(chunk);
      if (out === '') return out;
      if (held !== undefined) {
        hold(out);
        return '';
      }
      const match = actionable.exec(out);
      if (match === null) return out;
      // Events are separated by a blank line: the event holding the match starts after one.
      const blank = out.lastIndexOf('\n\n', match.index);
      const start = blank === -1 ? 0 : blank + 2;
      held = [];
      hold(out.slice(start));
      return out.slice(0, start);
    },
    end() {
      const rest = mediator.end();
      if (held === undefined) return rest;
      held.push(rest);
      return held.join('');
    },
    evidence: () => mediator.evidence(),
  };
}
