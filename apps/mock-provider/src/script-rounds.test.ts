import { describe, expect, it } from 'vitest';
import { countToolResults, latestUserText, resolveScript, scriptSource } from './script.ts';

/** Multi-turn scripts (`rounds`): what the tool loop's tests script the model with. */

const ROUNDS = {
  rounds: [
    { call: 'tool_info', arguments: { name: 'a' } },
    { call: 'a', arguments: { x: 1 } },
    { text: 'done' },
  ],
  latencyMs: 0,
};
const say = `mock: ${JSON.stringify(ROUNDS)}`;

describe('rounds', () => {
  it('picks the round by how many tool results the conversation holds, the last for later turns', () => {
    const pick = (n: number) => {
      const result = resolveScript(undefined, say, n);
      if (!result.ok) throw new Error(result.message);
      return result.script;
    };
    expect(pick(0)).toMatchObject({ call: 'tool_info', latencyMs: 0 });
    expect(pick(1)).toMatchObject({ call: 'a', arguments: { x: 1 } });
    expect(pick(2).text).toBe('done');
    expect(pick(9).text).toBe('done');
    expect(pick(0).rounds).toBeUndefined();
  });

  it('validates the picked round like any script', () => {
    const result = resolveScript(JSON.stringify({ rounds: [{ nope: true }] }), '');
    expect(result.ok).toBe(false);
    expect(resolveScript(JSON.stringify({ rounds: [3] }), '').ok).toBe(false);
  });

  it('counts tool results on every API', () => {
    expect(
      countToolResults({ messages: [{ role: 'tool' }, { role: 'user' }, { role: 'tool' }] }),
    ).toBe(2);
    expect(
      countToolResults({
        messages: [{ role: 'user', content: [{ type: 'tool_result' }, { type: 'text' }] }],
      }),
    ).toBe(1);
    expect(
      countToolResults({ input: [{ type: 'function_call_output' }, { type: 'message' }] }),
    ).toBe(1);
    expect(
      countToolResults({ contents: [{ parts: [{ functionResponse: {} }, { text: 'x' }] }] }),
    ).toBe(1);
    expect(countToolResults({ input: 'hello' })).toBe(0);
  });

  it('reads a rounds script from an earlier user message when the conversation ends in results', () => {
    const chat = {
      messages: [
        { role: 'user', content: say },
        { role: 'assistant' },
        { role: 'tool', content: 'r' },
      ],
    };
    expect(latestUserText(chat)).toBe(say);
    expect(scriptSource('', chat)).toBe(say);
    const gemini = {
      contents: [
        { role: 'user', parts: [{ text: say }] },
        { role: 'user', parts: [{ functionResponse: {} }] },
      ],
    };
    expect(scriptSource('', gemini)).toBe(say);
    // A script without rounds keeps scripting only the turn it is in.
    const once = {
      messages: [
        { role: 'user', content: 'mock: {"call":"a"}' },
        { role: 'tool', content: 'r' },
      ],
    };
    expect(scriptSource('', once)).toBe('');
  });
});
