import { CallToolRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainCallToolRequest, plainCallToolResult } from './call-tool-shape.ts';

/** Whatever the hand check answers, zod answers too, and the same: it only ever skips zod. */
function sameAsZod<T>(
  check: (value: T) => unknown,
  schema: { safeParse: (value: unknown) => { success: boolean; data?: unknown } },
  value: T,
): unknown {
  const plain = check(value);
  const parsed = schema.safeParse(value);
  if (plain !== undefined) {
    expect(parsed.success).toBe(true);
    expect(plain).toEqual(parsed.data);
    expect(JSON.stringify(plain)).toBe(JSON.stringify(JSON.parse(JSON.stringify(parsed.data))));
  }
  return plain;
}

const text = fc.oneof(fc.string(), fc.constant('\ud800 lone'), fc.constant('__proto__'));
const json = fc.jsonValue({ maxDepth: 2 });
const anyOf = fc.oneof(json, text, fc.constant(undefined));
const record = fc.dictionary(text, json, { maxKeys: 4 });
/** Parsed from JSON, as the lean path gets it (an own `__proto__` member possible). */
const parsed = <T>(arb: fc.Arbitrary<T>) =>
  arb.map((value) => JSON.parse(JSON.stringify(value) ?? 'null'));

describe('plainCallToolRequest', () => {
  const params = fc.record(
    {
      name: fc.oneof(text, fc.integer()),
      arguments: fc.oneof(record, json, fc.constant('{"__proto__":{"x":1}}').map(JSON.parse)),
      _meta: fc.oneof(
        fc.record({
          progressToken: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(2 ** 60)),
        }),
        fc.record({ progressToken: fc.string(), other: json }),
        fc.constant({ 'io.modelcontextprotocol/related-task': { taskId: 't' } }),
        json,
      ),
      task: fc.record({ ttl: fc.integer() }),
      extra: anyOf,
    },
    { requiredKeys: [] },
  );

  // Plausible calls, mostly within the hand check's shape, near misses among them.
  const plausible = fc.record(
    {
      name: text,
      arguments: record,
      _meta: fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), fc.double()) }),
    },
    { requiredKeys: ['name'] },
  );
  const anyParams = fc.oneof(plausible, plausible, params);

  it('answers what CallToolRequestSchema answers, for any params', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        parsed(anyParams),
        fc.oneof(fc.constant('tools/call'), fc.constant('tools/call'), text),
        (p, method) => {
          const plain = sameAsZod(plainCallToolRequest, CallToolRequestSchema, {
            jsonrpc: '2.0',
            id: 1,
            method,
            params: p,
          } as never);
          if (plain !== undefined) taken++;
        },
      ),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(200); // the generator reaches the hand check's side too
  });

  it('takes the common calls itself', () => {
    const call = (params: unknown) =>
      sameAsZod(plainCallToolRequest, CallToolRequestSchema, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params,
      } as never);
    expect(call({ name: 'echo', arguments: { text: 'ping' } })).toBeDefined();
    expect(call({ name: 'echo' })).toBeDefined();
    expect(call({ name: 'echo', arguments: {}, _meta: { progressToken: 3 } })).toBeDefined();
    expect(call({ name: 'echo', _meta: { progressToken: 'p-1' } })).toBeDefined();
    // Left to zod: members it strips or checks, and values it refuses.
    expect(call({ name: 'echo', extra: 1 })).toBeUndefined();
    expect(call({ name: 'echo', task: { ttl: 1 } })).toBeUndefined();
    expect(call({ name: 'echo', _meta: { progressToken: 1.5 } })).toBeUndefined();
    expect(call({ name: 'echo', arguments: [] })).toBeUndefined();
    expect(call({ name: 1 })).toBeUndefined();
    expect(call({ name: 'x', arguments: JSON.parse('{"__proto__":{"a":1}}') })).toBeUndefined();
  });
});

describe('plainCallToolResult', () => {
  const block = fc.oneof(
    fc.record({ type: fc.constant('text'), text }),
    fc.record({
      type: fc.constant('text'),
      text,
      annotations: fc.record({ priority: fc.double() }),
    }),
    fc.record({ type: fc.constant('text'), text: fc.integer() }),
    fc.record({ type: fc.constant('image'), data: fc.base64String(), mimeType: fc.string() }),
    fc.record({ type: fc.constant('text'), text, junk: json }),
    json,
  );
  const result = fc.record(
    {
      content: fc.oneof(fc.array(block, { maxLength: 3 }), json),
      structuredContent: fc.oneof(record, json),
      isError: fc.oneof(fc.boolean(), json),
      _meta: fc.oneof(record, fc.record({ progressToken: fc.string() })),
      extra: anyOf,
      ['__proto__']: json,
    },
    { requiredKeys: [] },
  );

  const plausibleResult = fc.record(
    {
      content: fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text'), text }),
          fc.record({ type: fc.constant('text'), text }),
          block,
        ),
        { maxLength: 3 },
      ),
      structuredContent: record,
      isError: fc.boolean(),
      extra: json,
    },
    { requiredKeys: ['content'] },
  );

  it('answers what CallToolResultSchema answers, for any result', () => {
    let taken = 0;
    fc.assert(
      fc.property(parsed(fc.oneof(plausibleResult, plausibleResult, result)), (value) => {
        if (sameAsZod(plainCallToolResult, CallToolResultSchema, value) !== undefined) taken++;
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(200);
  });

  it('takes results of text blocks itself', () => {
    const check = (value: unknown) => sameAsZod(plainCallToolResult, CallToolResultSchema, value);
    expect(check({ content: [{ type: 'text', text: 'ping' }] })).toBeDefined();
    expect(check({ content: [], isError: true, structuredContent: { n: 1 } })).toBeDefined();
    expect(check({ content: [{ type: 'text', text: 'a' }], toolResult: 'legacy' })).toBeDefined();
    // Left to zod: a default to apply, blocks it copies in part, and what it refuses.
    expect(check({})).toBeUndefined();
    expect(
      check({ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }),
    ).toBeUndefined();
    expect(check({ content: [{ type: 'text', text: 'a', annotations: {} }] })).toBeUndefined();
    expect(check({ content: [{ type: 'text', text: 1 }] })).toBeUndefined();
    expect(check({ content: [], _meta: {} })).toBeUndefined();
    expect(check({ content: [], isError: 'yes' })).toBeUndefined();
    expect(check(JSON.parse('{"content":[],"__proto__":{"isError":true}}'))).toBeUndefined();
  });
});
