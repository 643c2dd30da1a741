import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { malformedJson, readableFailure } from '../testing/hostile-json.ts';
import { jsonObjectUtf8, jsonTextWithRemembered, knownJsonText } from './json-text.ts';
import { RequestParser, topLevelValueStart, valueEnd } from './request-parser.ts';
import { illFormedPathInJson } from './well-formed-text.ts';

const TOOLS = [
  { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
  { type: 'function', function: { name: 'b "quoted" \\ [x] {y}', description: '}]"' } },
];
const toolsText = JSON.stringify(TOOLS);

/** What `JSON.parse` gives, or the message it throws. */
function outcome(parse: (raw: string) => unknown, raw: string): unknown {
  try {
    return { value: parse(raw) };
  } catch (error) {
    return { threw: (error as Error).constructor.name, message: (error as Error).message };
  }
}

/** A parser that has already seen `toolsText`, so the next request with it takes the shortcut. */
function warmParser(): RequestParser {
  const parser = new RequestParser();
  parser.parse(`{"model":"m","tools":${toolsText}}`);
  return parser;
}

describe('RequestParser', () => {
  it('shares a tool list seen before, frozen, with its JSON text known', () => {
    const parser = warmParser();
    const first = parser.parse(`{"model":"x","messages":[],"tools":${toolsText},"n":1}`) as {
      tools: unknown;
    };
    const second = parser.parse(`{"tools":${toolsText},"model":"y"}`) as { tools: unknown };
    expect(first).toEqual({ model: 'x', messages: [], tools: TOOLS, n: 1 });
    expect(Object.keys(first)).toEqual(['model', 'messages', 'tools', 'n']);
    expect(second.tools).toBe(first.tools);
    expect(Object.isFrozen(first.tools)).toBe(true);
    expect(knownJsonText(first.tools)).toBe(toolsText);
  });

  it.each([
    ['a later duplicate tools key wins, as in JSON.parse', `{"tools":${toolsText},"tools":[1]}`],
    ['an earlier duplicate', `{"tools":[1],"tools":${toolsText}}`],
    ['an escaped key spelling', `{"tools":${toolsText},"\\u0074ools":"x"}`],
    [
      'the known text inside a string',
      `{"model":"\\"tools\\":${toolsText.replaceAll('"', '\\"')}"}`,
    ],
    ['a nested tools key', `{"x":{"tools":${toolsText}},"tools":[]}`],
    ['the list cut short', `{"tools":${toolsText.slice(0, -1)}`],
    ['the list followed by garbage', `{"tools":${toolsText}]}`],
    ['a missing comma after the list', `{"tools":${toolsText} "model":"m"}`],
    ['a forged marker', `{"tools":"\\u0000toolgate-tools-00","model":"m"}`],
    ['whitespace around everything', ` {\n "tools" :\t${toolsText} , "m" : 1 }\n`],
    ['not an object', `[${toolsText}]`],
    ['trailing text after the object', `{"tools":${toolsText}} x`],
  ])('equals JSON.parse: %s', (_name, raw) => {
    expect(outcome((text) => warmParser().parse(text), raw)).toEqual(
      outcome((text) => JSON.parse(text), raw),
    );
  });

  it('equals JSON.parse on arbitrary JSON around a known tool list, and on broken variants', () => {
    const member = fc.tuple(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }));
    const request = fc
      .record({
        before: fc.array(member, { maxLength: 4 }),
        after: fc.array(member, { maxLength: 4 }),
      })
      .map(({ before, after }) => {
        const text = (members: Array<[string, unknown]>) =>
          members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`).join('');
        return `{${text(before)}"tools":${toolsText},${text(after)}"end":true}`;
      });
    const input = fc.oneof(
      request,
      request.chain((valid) => malformedJson(valid)),
    );
    fc.assert(
      fc.property(input, (raw) => {
        expect(outcome((text) => warmParser().parse(text), raw)).toEqual(
          outcome((text) => JSON.parse(text), raw),
        );
      }),
      { numRuns: 400, reporter: readableFailure((raw) => raw) },
    );
  });

  describe('parseRequest: the lone-surrogate check, a known list scanned once', () => {
    // A list whose text holds a lone surrogate escape (refused, but learned by the parser).
    const badList = '[{"name":"a","description":"\\ud800x"}]';
    const pairedList = '[{"name":"a","description":"\\ud83d\\ude00"}]';
    it.each([
      ['nothing ill-formed', `{"model":"m","tools":${toolsText}}`],
      ['a lone surrogate before the known list', `{"model":"\\udc00","tools":${toolsText}}`],
      ['a lone surrogate after it', `{"tools":${toolsText},"messages":[{"content":"a\\ud800"}]}`],
      ['a lone surrogate in a key after it', `{"tools":${toolsText},"\\ud800":1}`],
      ['a paired escape after it (not ill-formed)', `{"tools":${toolsText},"m":"\\ud83d\\ude00"}`],
      ['a known list holding a lone surrogate', `{"model":"m","tools":${badList}}`],
      ['a known list holding a paired escape', `{"model":"m","tools":${pairedList}}`],
      ['an unknown list', `{"tools":[{"x":"\\udfff"}]}`],
      ['no tools', `{"model":"\\ud800"}`],
    ])('is illFormedPathInJson: %s', (_name, raw) => {
      const parser = warmParser();
      parser.parse(`{"tools":${badList}}`);
      parser.parse(`{"tools":${pairedList}}`);
      const checked = parser.parseRequest(raw);
      expect(checked.body).toEqual(JSON.parse(raw));
      expect(checked.illFormedPath).toBe(illFormedPathInJson(raw, JSON.parse(raw)));
    });

    it('names the field the full check names', () => {
      const raw = `{"tools":${toolsText},"messages":[{"content":"a\\ud800"}]}`;
      expect(warmParser().parseRequest(raw).illFormedPath).toBe('messages[0].content');
    });
  });

  it('keeps at most 16 lists, most recently used first', () => {
    const parser = new RequestParser();
    const lists = Array.from({ length: 18 }, (_, i) => [{ n: i }]);
    const first = parser.parse(`{"tools":${JSON.stringify(lists[0])}}`) as { tools: unknown };
    for (const list of lists.slice(1)) parser.parse(`{"tools":${JSON.stringify(list)}}`);
    const again = parser.parse(`{"tools":${JSON.stringify(lists[0])}}`) as { tools: unknown };
    expect(again.tools).toEqual(lists[0]);
    expect(again.tools).not.toBe(first.tools);
    const last = parser.parse(`{"tools":${JSON.stringify(lists[17])}}`) as { tools: unknown };
    expect(parser.parse(`{"tools":${JSON.stringify(lists[17])}}`)).toHaveProperty(
      'tools',
      last.tools,
    );
  });
});

describe('the lexical scan', () => {
  it('finds the first top-level key written exactly so, skipping strings and nesting', () => {
    const raw = '{"a":"\\"tools\\":[",  "b":{"tools":1},"tools" : [1, "]"] }';
    const start = topLevelValueStart(raw, '"tools"');
    expect(raw.slice(start, valueEnd(raw, start))).toBe('[1, "]"]');
    expect(topLevelValueStart('{"a":1}', '"tools"')).toBe(-1);
    expect(topLevelValueStart('{"a":"\\\\"}', '"a"')).toBe(5);
    expect(valueEnd('"a\\\\"x', 0)).toBe(5);
    expect(valueEnd('[1,[2]', 0)).toBe(-1);
  });
});

describe('jsonObjectUtf8', () => {
  const joined = (pieces: Uint8Array[]) => Buffer.concat(pieces).toString('utf8');

  it('equals JSON.stringify, splicing remembered texts of top-level values', () => {
    const parser = warmParser();
    const body = parser.parse(`{"model":"m","tools":${toolsText},"z":[1]}`) as Record<
      string,
      unknown
    >;
    expect(joined(jsonObjectUtf8(body as never))).toBe(JSON.stringify(body));
    const marker = { model: '\u0000toolgate-json-text-', tools: body.tools };
    expect(joined(jsonObjectUtf8(marker as never))).toBe(JSON.stringify(marker));
    expect(joined(jsonObjectUtf8({ a: 1 }))).toBe('{"a":1}');
  });

  it('is JSON.stringify as UTF-8, the remembered values encoded once and reused', () => {
    const parser = warmParser();
    const text = `{"model":"m\u00e9","tools":${toolsText},"messages":[{"content":"é ✓ 𝄞"}]}`;
    const first = parser.parse(text) as Record<string, unknown>;
    const second = parser.parse(text) as Record<string, unknown>;
    const a = jsonObjectUtf8(first as never);
    const b = jsonObjectUtf8(second as never);
    expect(joined(a)).toBe(JSON.stringify(first));
    expect(joined(b)).toBe(JSON.stringify(second));
    // The tool list's bytes are one array, shared by both requests.
    expect(a.length).toBe(3);
    expect(a[1]).toBe(b[1]);
    expect(joined(jsonObjectUtf8({ a: 'é' }))).toBe('{"a":"é"}');
  });

  it('equals JSON.stringify for any object, remembered values or not', () => {
    const parser = warmParser();
    const tools = (parser.parse(`{"tools":${toolsText}}`) as { tools: unknown }).tools;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
        fc.option(fc.string(), { nil: undefined }),
        (rest, toolsKey) => {
          const body = toolsKey === undefined ? rest : { ...rest, [toolsKey]: tools };
          expect(joined(jsonObjectUtf8(body as never))).toBe(JSON.stringify(body));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('RequestParser within a member (a Responses stream event)', () => {
  /** A parser that has seen `toolsText` as `response.tools` of an event. */
  function warmEventParser(): RequestParser {
    const parser = new RequestParser({ within: 'response' });
    parser.parse(`{"type":"response.created","response":{"id":"r","tools":${toolsText}}}`);
    return parser;
  }

  it('shares the tool list one level down, frozen, with its text known', () => {
    const parser = warmEventParser();
    const event = parser.parse(
      `{"type":"response.completed","response":{"id":"r","output":[],"tools":${toolsText},"n":1},"sequence_number":9}`,
    ) as { response: { tools: unknown } };
    expect(event).toEqual({
      type: 'response.completed',
      response: { id: 'r', output: [], tools: TOOLS, n: 1 },
      sequence_number: 9,
    });
    expect(Object.isFrozen(event.response.tools)).toBe(true);
    expect(knownJsonText(event.response.tools)).toBe(toolsText);
  });

  it.each([
    ['a later duplicate response', `{"response":{"tools":${toolsText}},"response":{"tools":[]}}`],
    ['a later duplicate tools', `{"response":{"tools":${toolsText},"tools":[2]}}`],
    ['tools at the top level only', `{"tools":${toolsText},"response":{}}`],
    ['response not an object', `{"response":[${toolsText}]}`],
    ['the list cut short', `{"response":{"tools":${toolsText.slice(0, -1)}}}`],
    ['a forged marker', `{"response":{"tools":"\\u0000toolgate-tools-00"}}`],
  ])('equals JSON.parse: %s', (_name, raw) => {
    expect(outcome((text) => warmEventParser().parse(text), raw)).toEqual(
      outcome((text) => JSON.parse(text), raw),
    );
  });

  it('equals JSON.parse on arbitrary events around a known tool list, and on broken variants', () => {
    const member = fc.tuple(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }));
    const text = (members: Array<[string, unknown]>) =>
      members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`).join('');
    const event = fc
      .record({
        outer: fc.array(member, { maxLength: 3 }),
        before: fc.array(member, { maxLength: 3 }),
        after: fc.array(member, { maxLength: 3 }),
      })
      .map(
        ({ outer, before, after }) =>
          `{${text(outer)}"response":{${text(before)}"tools":${toolsText},${text(after)}"end":1},"sequence_number":3}`,
      );
    const input = fc.oneof(
      event,
      event.chain((valid) => malformedJson(valid)),
    );
    fc.assert(
      fc.property(input, (raw) => {
        expect(outcome((t) => warmEventParser().parse(t), raw)).toEqual(
          outcome((t) => JSON.parse(t), raw),
        );
      }),
      { numRuns: 400, reporter: readableFailure((raw) => raw) },
    );
  });
});

describe('jsonTextWithRemembered', () => {
  it('equals JSON.stringify, splicing remembered texts at the top level and one level down', () => {
    const tools = (warmParser().parse(`{"tools":${toolsText}}`) as { tools: unknown }).tools;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        fc.constantFrom('top', 'nested', 'both', 'none'),
        (outer, inner, where) => {
          const response: Record<string, unknown> = { ...inner };
          if (where === 'nested' || where === 'both') response.tools = tools;
          const body: Record<string, unknown> = { ...outer, response };
          if (where === 'top' || where === 'both') body.tools = tools;
          expect(jsonTextWithRemembered(body as never)).toBe(JSON.stringify(body));
        },
      ),
      { numRuns: 300 },
    );
  });
});
