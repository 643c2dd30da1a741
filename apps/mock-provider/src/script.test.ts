import { describe, expect, it } from 'vitest';
import {
  argumentsFromSchema,
  type DeclaredTool,
  describeTools,
  planReply,
  resolveScript,
  scriptFromText,
  WEB_SEARCH_ANSWER,
  WEB_SEARCH_RESULTS,
} from './script.ts';

const weather: DeclaredTool = {
  name: 'get_weather',
  function: true,
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['c', 'f'] },
      days: { type: 'integer' },
      note: { type: 'string' },
    },
    required: ['city', 'unit', 'days'],
  },
};
const search: DeclaredTool = { name: 'web_search', function: false };

function script(header: string | undefined, text = '') {
  const result = resolveScript(header, text);
  if (!result.ok) throw new Error(result.message);
  return result.script;
}

describe('scriptFromText', () => {
  it.each([
    ['hello', {}],
    ['Please call the first tool now', { call: 'first' }],
    ['CALL THE FIRST TOOL', { call: 'first' }],
    ['mock: {"call":"x","arguments":{"a":1}}', { call: 'x', arguments: { a: 1 } }],
    ['  mock:{"hosted":"web_search"}  ', { hosted: 'web_search' }],
    ['the word mock: {"call":"x"} inside a sentence', {}],
  ])('%j → %j', (text, expected) => {
    expect(scriptFromText(text)).toEqual(expected);
  });

  it('rejects a mock: script that is not an object', () => {
    expect(() => scriptFromText('mock: {"a": [}')).toThrow();
  });
});

describe('resolveScript', () => {
  it('is empty without header or trigger', () => {
    expect(resolveScript(undefined, 'hi')).toEqual({ ok: true, script: {} });
  });

  it('lets the header win field by field over the message', () => {
    expect(script('{"arguments":{"q":"x"},"latencyMs":5}', 'call the first tool')).toEqual({
      call: 'first',
      arguments: { q: 'x' },
      latencyMs: 5,
    });
  });

  it('defaults the arguments of each of several calls', () => {
    expect(script('{"calls":[{"name":"a"},{"name":"b","arguments":{"x":1}}]}').calls).toEqual([
      { name: 'a', arguments: {} },
      { name: 'b', arguments: { x: 1 } },
    ]);
  });

  it.each([
    ['not json', 'invalid mock script'],
    ['[1]', 'must be a JSON object'],
    ['{"unknown":1}', 'unknown'],
    ['{"call":"a","calls":[{"name":"b"}]}', 'either call or calls'],
    ['{"error":{"status":200}}', 'error.status'],
    ['{"hosted":"teleport"}', 'hosted'],
    ['{"cut":-1}', 'cut'],
  ])('rejects %s', (header, message) => {
    const result = resolveScript(header, '');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
  });

  it('reports a broken mock: message as invalid', () => {
    const result = resolveScript(undefined, 'mock: {broken}');
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('invalid') });
  });
});

describe('describeTools', () => {
  it.each([
    [[], 'mock: 0 tools'],
    [[weather], 'mock: 1 tool: get_weather'],
    [[weather, search, { name: 'c', function: true }], 'mock: 3 tools: get_weather, web_search, c'],
  ])('%#', (tools, expected) => {
    expect(describeTools(tools)).toBe(expected);
  });
});

describe('argumentsFromSchema', () => {
  it('fills required properties only, strings with their name and enums with the first value', () => {
    expect(argumentsFromSchema(weather.parameters)).toEqual({ city: 'city', unit: 'c', days: 0 });
  });

  it('is empty for a missing or property-less schema', () => {
    expect(argumentsFromSchema(undefined)).toEqual({});
    expect(argumentsFromSchema({ type: 'object' })).toEqual({});
  });

  it('covers every JSON type', () => {
    const schema = {
      properties: {
        a: { type: 'boolean' },
        b: { type: 'array' },
        c: { type: 'object' },
        d: { type: ['number', 'null'] },
        e: {},
      },
      required: ['a', 'b', 'c', 'd', 'e'],
    };
    expect(argumentsFromSchema(schema)).toEqual({ a: false, b: [], c: {}, d: 0, e: null });
  });
});

describe('planReply', () => {
  it('echoes the tools by default', () => {
    expect(planReply({}, [weather, search], 'hi')).toEqual({
      text: 'mock: 2 tools: get_weather, web_search',
      toolCalls: [],
    });
  });

  it('calls the first function tool, skipping hosted tools, with schema arguments', () => {
    expect(planReply({ call: 'first' }, [search, weather], '')).toEqual({
      text: '',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'city', unit: 'c', days: 0 } }],
    });
  });

  it('falls back to the echo when there is no function tool to call first', () => {
    expect(planReply({ call: 'first' }, [search], '')).toEqual({
      text: 'mock: 1 tool: web_search',
      toolCalls: [],
    });
  });

  it('calls any named tool, declared or not, with text before it when asked', () => {
    expect(planReply(script('{"call":"hidden","arguments":{"x":1},"text":"ok"}'), [], '')).toEqual({
      text: 'ok',
      toolCalls: [{ name: 'hidden', arguments: { x: 1 } }],
    });
  });

  it('makes parallel calls', () => {
    const plan = planReply(script('{"calls":[{"name":"a"},{"name":"b"}]}'), [weather], '');
    expect(plan.toolCalls.map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('runs a hosted web search for the user text and answers citing it', () => {
    expect(planReply({ hosted: 'web_search' }, [], ' weather in Paris ')).toEqual({
      webSearch: { query: 'weather in Paris', results: WEB_SEARCH_RESULTS },
      text: WEB_SEARCH_ANSWER,
      toolCalls: [],
    });
  });

  it('replies with the scripted text', () => {
    expect(planReply({ text: 'exact' }, [weather], '').text).toBe('exact');
  });
});
