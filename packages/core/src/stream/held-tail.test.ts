import { describe, expect, it } from 'vitest';
import { HeldTailTooLargeError, holdActionableTail } from './held-tail.ts';
import type { StreamMediator } from './sse.ts';

/** A mediator that forwards what it is fed: the wrapper alone is under test. */
function echo(): StreamMediator {
  return {
    push: (chunk) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
    end: () => '',
    evidence: () => ({ tool_calls: [], hosted_tool_events: [] }),
  };
}

const text = (s: string) =>
  `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(s)}},"finish_reason":null}]}\n\n`;
const toolCall =
  'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"x","arguments":"{}"}}]},"finish_reason":null}]}\n\n';
const finish = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';
const done = 'data: [DONE]\n\n';

describe('holdActionableTail', () => {
  it('lets text through and holds everything from the first tool call on until end()', () => {
    const m = holdActionableTail(echo(), 'openai-chat');
    expect(m.push(text('Hel'))).toBe(text('Hel'));
    // Text before the tool call in the same piece still goes now.
    expect(m.push(text('lo') + toolCall + text('later'))).toBe(text('lo'));
    expect(m.push(finish + done)).toBe('');
    expect(m.end()).toBe(toolCall + text('later') + finish + done);
  });

  it('holds a finish reason and [DONE] even without tool calls', () => {
    const m = holdActionableTail(echo(), 'openai-chat');
    expect(m.push(text('a') + finish)).toBe(text('a'));
    expect(m.end()).toBe(finish);
    const d = holdActionableTail(echo(), 'openai-chat');
    expect(d.push(done)).toBe('');
    expect(d.end()).toBe(done);
  });

  it('is not fooled by model text that spells out a key, nor by null fields', () => {
    const m = holdActionableTail(echo(), 'openai-chat');
    const sly = text('"tool_calls":[ "finish_reason":"stop" data: [DONE]');
    const nulls =
      'data: {"choices":[{"index":0,"delta":{"content":"x","tool_calls":null,"function_call":null},"finish_reason":null}]}\n\n';
    expect(m.push(sly)).toBe(sly);
    expect(m.push(nulls)).toBe(nulls);
    expect(m.end()).toBe('');
  });

  it('holds Anthropic tool_use blocks, message_delta and message_stop, not text blocks', () => {
    const m = holdActionableTail(echo(), 'anthropic-messages');
    const start = 'event: message_start\ndata: {"type":"message_start","message":{}}\n\n';
    const textDelta =
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\"type\\":\\"tool_use\\""}}\n\n';
    const toolUse =
      'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"x","input":{}}}\n\n';
    const stop = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    expect(m.push(start + textDelta)).toBe(start + textDelta);
    expect(m.push(toolUse)).toBe('');
    expect(m.push(stop)).toBe('');
    expect(m.end()).toBe(toolUse + stop);
  });

  it('holds Gemini functionCall parts and the finishReason chunk, not text that spells them', () => {
    const m = holdActionableTail(echo(), 'gemini');
    const chunk = (part: string, finish = '') =>
      `data: {"candidates":[{"content":{"role":"model","parts":[${part}]}${finish},"index":0}]}\n\n`;
    const sly = chunk('{"text":"\\"functionCall\\": {\\"finishReason\\":\\"STOP"}');
    const call = chunk('{"functionCall":{"name":"x","args":{}}}');
    const last = chunk('{"text":""}', ',"finishReason":"STOP"');
    expect(m.push(sly)).toBe(sly);
    expect(m.push(call + sly)).toBe('');
    expect(m.end()).toBe(call + sly);
    const f = holdActionableTail(echo(), 'gemini');
    expect(f.push(sly + last)).toBe(sly);
    expect(f.end()).toBe(last);
  });

  it('fails the stream when a provider goes on too long after its tail started', () => {
    const m = holdActionableTail(echo(), 'openai-chat', 1000);
    m.push(toolCall);
    expect(() => m.push(text('x'.repeat(2000)))).toThrow(HeldTailTooLargeError);
  });
});
