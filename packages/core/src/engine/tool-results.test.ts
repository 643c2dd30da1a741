import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashLenient } from '../hash/hash.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { isWellFormedString } from '../json/well-formed-text.ts';
import { buildReceiptBody } from '../receipt/build-receipt.ts';
import { chainReceiptJson } from '../receipt/chain.ts';
import { RECEIPT_LIMITS } from '../receipt/receipt-limits.ts';
import { ReceiptBody } from '../receipt/receipt-schema.ts';
import type { RuleIdentity } from './identity-match.ts';
import { mediateRequest } from './mediate-request.ts';
import {
  anthropicRequest,
  anthropicTool,
  bundleOf,
  openAIRequest,
  openAITool,
} from './test-fixtures.ts';
import { NO_TOOL_RESULTS } from './tool-results.ts';

const bundle = bundleOf({
  rules: [{ id: 'alias', action: 'rename', match: { name: 'search' }, alias: 'find' }],
  redact: ['account'],
});
const identity: RuleIdentity = { human: 'alice', session: 's-1', trusted: ['human'] };

function openAIAssistant(calls: Array<[string, string, string]>): JsonObject {
  return {
    role: 'assistant',
    content: null,
    tool_calls: calls.map(([id, name, args]) => ({
      id,
      type: 'function',
      function: { name, arguments: args },
    })),
  };
}

function openAI(messages: JsonValue[]): JsonObject {
  return openAIRequest([openAITool('search'), openAITool('send')], {
    messages: [{ role: 'user', content: 'go' }, ...messages],
  });
}

function anthropic(messages: JsonValue[]): JsonObject {
  return anthropicRequest([anthropicTool('search')], {
    messages: [{ role: 'user', content: 'go' }, ...messages],
  });
}

/** The action id the response side gives a call the provider returned under `providerName`. */
function releasedActionId(
  body: JsonObject,
  surface: 'openai-chat' | 'anthropic-messages',
  providerName: string,
  args: unknown,
) {
  const mediation = mediateRequest(bundle, { surface, body, identity });
  return mediation.response.decideCall('id', providerName, args).action_id;
}

describe('readToolResults: OpenAI tool messages', () => {
  const body = openAI([
    openAIAssistant([
      ['call_1', 'search', '{"q":"cats"}'],
      ['call_2', 'send', '{"to":"bob"}'],
    ]),
    { role: 'tool', tool_call_id: 'call_1', content: '{"hits": 3, "top": "x"}' },
    { role: 'tool', tool_call_id: 'call_2', content: 'sent, no JSON here' },
    { role: 'tool', tool_call_id: 'call_9', content: [{ type: 'text', text: 'orphan' }] },
  ]);
  const { entries, truncated } = mediateRequest(bundle, {
    surface: 'openai-chat',
    body,
    identity,
  }).toolResults;

  it('records each result since the last assistant turn, in message order', () => {
    expect(truncated).toBe(false);
    expect(entries.map((e) => e.tool_call_id)).toEqual(['call_1', 'call_2', 'call_9']);
    expect(entries.every((e) => e.is_error === false && e.elapsed_ms === null)).toBe(true);
  });

  it('gives each result the action id the response side gave its call (renamed back included)', () => {
    // The provider sees `search` as `find`; the agent (and its next request) says `search`.
    const first = openAI([]);
    expect(entries[0]?.action_id).toBe(
      releasedActionId(first, 'openai-chat', 'find', '{"q":"cats"}'),
    );
    expect(entries[1]?.action_id).toBe(
      releasedActionId(first, 'openai-chat', 'send', '{"to":"bob"}'),
    );
  });

  it('leaves out the action id of a result whose call is not in the conversation', () => {
    expect(entries[2]).not.toHaveProperty('action_id');
  });

  it('hashes JSON text as its canonical value, other text as the string, arrays as arrays', () => {
    expect(entries[0]?.result_hash).toBe(hashLenient({ top: 'x', hits: 3 }));
    expect(entries[1]?.result_hash).toBe(hashLenient('sent, no JSON here'));
    expect(entries[2]?.result_hash).toBe(hashLenient([{ type: 'text', text: 'orphan' }]));
  });

  it('ignores results of earlier turns and requests without results cost nothing', () => {
    const later = openAI([
      openAIAssistant([['call_1', 'search', '{}']]),
      { role: 'tool', tool_call_id: 'call_1', content: 'old' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'thanks' },
    ]);
    const result = mediateRequest(bundle, { surface: 'openai-chat', body: later }).toolResults;
    expect(result).toBe(NO_TOOL_RESULTS);
    const first = mediateRequest(bundle, { surface: 'openai-chat', body: openAI([]) });
    expect(first.toolResults).toBe(NO_TOOL_RESULTS);
  });

  it('links a reused id to its latest call', () => {
    const reused = openAI([
      openAIAssistant([['call_1', 'send', '{"to":"old"}']]),
      { role: 'tool', tool_call_id: 'call_1', content: 'a' },
      openAIAssistant([['call_1', 'send', '{"to":"new"}']]),
      { role: 'tool', tool_call_id: 'call_1', content: 'b' },
    ]);
    const [entry] = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: reused,
      identity,
    }).toolResults.entries;
    expect(entry?.action_id).toBe(
      releasedActionId(openAI([]), 'openai-chat', 'send', '{"to":"new"}'),
    );
  });

  it('redacts a result as arguments are redacted, before hashing', () => {
    const secretish = openAI([
      openAIAssistant([['call_1', 'search', '{}']]),
      { role: 'tool', tool_call_id: 'call_1', content: '{"account":"acme-42","n":1}' },
    ]);
    const [entry] = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: secretish,
    }).toolResults.entries;
    expect(entry?.result_hash).toBe(hashLenient({ account: '[REDACTED]', n: 1 }));
    expect(entry?.redacted_result).toEqual(['account']);
  });
});

describe('readToolResults: Anthropic tool_result blocks', () => {
  const body = anthropic([
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'looking' },
        { type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'cats' } },
        { type: 'tool_use', id: 'toolu_2', name: 'search', input: { q: 'dogs' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"hits":3}' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          is_error: true,
          content: [{ type: 'text', text: 'rate limited' }],
        },
        { type: 'text', text: 'and now?' },
      ],
    },
  ]);
  const { entries } = mediateRequest(bundle, {
    surface: 'anthropic-messages',
    body,
    identity,
  }).toolResults;

  it('records is_error, the action id of the tool_use, and content arrays as arrays', () => {
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ tool_call_id: 'toolu_1', is_error: false });
    expect(entries[1]).toMatchObject({ tool_call_id: 'toolu_2', is_error: true });
    expect(entries[0]?.action_id).toBe(
      releasedActionId(anthropic([]), 'anthropic-messages', 'find', { q: 'cats' }),
    );
    expect(entries[0]?.result_hash).toBe(hashLenient({ hits: 3 }));
    expect(entries[1]?.result_hash).toBe(hashLenient([{ type: 'text', text: 'rate limited' }]));
  });

  it('ids belong to the identity: another identity gets another action id', () => {
    const other = mediateRequest(bundle, {
      surface: 'anthropic-messages',
      body,
      identity: { human: 'mallory' },
    }).toolResults.entries;
    expect(other[0]?.action_id).not.toBe(entries[0]?.action_id);
  });
});

describe('readToolResults: deterministic and bounded', () => {
  it('the same request gives the same results; key order and spacing never change a hash', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (value, pretty) => {
        const keys = Object.keys(value).reverse();
        const reordered = Object.fromEntries(keys.map((k) => [k, value[k]]));
        const text = (v: unknown) => JSON.stringify(v, null, pretty ? 2 : 0);
        const read = (content: string) =>
          mediateRequest(bundle, {
            surface: 'openai-chat',
            body: openAI([
              openAIAssistant([['call_1', 'search', '{}']]),
              { role: 'tool', tool_call_id: 'call_1', content },
            ]),
          }).toolResults.entries[0]?.result_hash;
        expect(read(text(value))).toBe(read(JSON.stringify(value)));
        expect(read(text(reordered))).toBe(read(JSON.stringify(value)));
      }),
      { numRuns: 100 },
    );
  });

  it('records at most the receipt limit, and the receipt says it cut the list', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      type: 'tool_result',
      tool_use_id: `toolu_${i}`,
      content: 'ok',
    }));
    const mediation = mediateRequest(bundle, {
      surface: 'anthropic-messages',
      body: anthropic([
        { role: 'assistant', content: 'x' },
        { role: 'user', content: many },
      ]),
    });
    expect(mediation.toolResults.entries).toHaveLength(RECEIPT_LIMITS.toolResults);
    expect(mediation.toolResults.truncated).toBe(true);
    const receipt = buildReceiptBody(receiptInput(mediation));
    expect(receipt.tool_results).toHaveLength(RECEIPT_LIMITS.toolResults);
    expect(receipt.truncated_paths).toContain('tool_results');
  });

  it('a receipt holds hostile ids well-formed and cut, and stays within its byte budget', () => {
    const hostile = (i: number) => `${'\u0001'.repeat(100_000)}\ud800\u0000${i}`;
    const messages: JsonValue[] = [openAIAssistant([['x', 'search', '{}']])];
    for (let i = 0; i < 200; i++) {
      messages.push({ role: 'tool', tool_call_id: hostile(i), content: 'r' });
    }
    const mediation = mediateRequest(bundle, { surface: 'openai-chat', body: openAI(messages) });
    const receipt = buildReceiptBody({
      ...receiptInput(mediation),
      toolResults: {
        ...mediation.toolResults,
        entries: mediation.toolResults.entries.map((e, i) => ({
          ...e,
          elapsed_ms: i % 2 === 0 ? Number.NaN : -5,
        })),
      },
    });
    expect(ReceiptBody.parse(receipt)).toEqual(receipt);
    const results = receipt.tool_results ?? [];
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.tool_call_id.length <= RECEIPT_LIMITS.toolCallId)).toBe(true);
    expect(results.every((r) => r.elapsed_ms === null)).toBe(true);
    const json = JSON.stringify(results);
    expect(isWellFormedString(json)).toBe(true);
    expect(json).not.toContain('\\u0000');
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(RECEIPT_LIMITS.toolResultsBytes);
    expect(receipt.truncated_paths).toContain('tool_results');
    expect(() => chainReceiptJson(receipt, null)).not.toThrow();
  });

  it('hashes a result nested too deeply to walk as its text, never refusing the request', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const body = openAI([
      openAIAssistant([['call_1', 'search', '{}']]),
      { role: 'tool', tool_call_id: 'call_1', content: deep },
    ]);
    const [entry] = mediateRequest(bundle, { surface: 'openai-chat', body }).toolResults.entries;
    expect(entry?.result_hash).toBe(hashLenient(deep));
    const deepCall = openAI([
      openAIAssistant([['call_1', 'search', deep]]),
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ]);
    const [echoed] = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: deepCall,
    }).toolResults.entries;
    expect(echoed).not.toHaveProperty('action_id');
  });

  it('a receipt without results has no tool_results field', () => {
    const mediation = mediateRequest(bundle, { surface: 'openai-chat', body: openAI([]) });
    expect(buildReceiptBody(receiptInput(mediation))).not.toHaveProperty('tool_results');
  });
});

function receiptInput(mediation: ReturnType<typeof mediateRequest>) {
  return {
    id: 'rcpt_1',
    gateway: 'gw-1',
    receivedAt: '2026-01-02T03:04:05.000Z',
    completedAt: '2026-01-02T03:04:05.250Z',
    latencyMs: { total: 1, mediation: 0.1, upstream: 0.9 },
    identity: { binding: 'unverified' as const },
    bundleEtag: `sha256:${'e'.repeat(64)}`,
    mediation,
    outcome: { status: 200 },
    toolResults: mediation.toolResults,
  };
}
