import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mediateRequest } from '../engine/mediate-request.ts';
import { bundleOf, openAIRequest, openAITool } from '../engine/test-fixtures.ts';
import { CanonicalJsonError, canonicalize, canonicalizeMembers } from '../json/canonical-json.ts';
import { enforceResponseBody } from '../response/enforce-response.ts';
import { buildReceiptBody, type ReceiptInput } from './build-receipt.ts';
import { chainReceiptJson } from './chain.ts';
import { ReceiptDraft, type ReceiptEnd } from './receipt-draft.ts';
import type { ResponseEvidence } from './receipt-schema.ts';

const bundle = bundleOf({
  rules: [{ id: 'hide-pr-creation', action: 'hide', match: { name: 'create_pull_request' } }],
});
const fakeKey = `${'sk-'}proj-${'F4KE'.repeat(6)}`;

function evidence(mediation: ReturnType<typeof mediateRequest>, args: string): ResponseEvidence {
  return enforceResponseBody(
    {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'search', arguments: args } },
              {
                id: 'call_2',
                type: 'function',
                function: { name: 'create_pull_request', arguments: '{}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    },
    mediation.response,
  ).evidence;
}

function split(input: ReceiptInput): { draft: ReceiptDraft; end: ReceiptEnd } {
  const { completedAt, latencyMs, outcome, response, toolResults, mcp, ...rest } = input;
  const end: ReceiptEnd = { completedAt, latencyMs, outcome };
  if (response) end.response = response;
  if (toolResults) end.toolResults = toolResults;
  if (mcp) end.mcp = mcp;
  return { draft: new ReceiptDraft(rest), end };
}

/** The draft's receipt is the one buildReceiptBody + chainReceiptJson make, text and hash. */
function expectSame(input: ReceiptInput, prevHash: string | null) {
  const { draft, end } = split(input);
  expect(draft.chainJson(end, prevHash)).toEqual(
    chainReceiptJson(buildReceiptBody(input), prevHash),
  );
}

function input(overrides: {
  model?: string;
  tools?: string[];
  identity?: ReceiptInput['identity'];
  error?: string;
  args?: string;
}): ReceiptInput {
  const mediation = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: openAIRequest(
      (overrides.tools ?? ['create_pull_request', 'search']).map((t) => openAITool(t)),
      overrides.model === undefined ? {} : { model: overrides.model },
    ),
  });
  return {
    id: 'rcpt_1',
    gateway: 'gw-1',
    receivedAt: '2026-01-02T03:04:05.000Z',
    completedAt: '2026-01-02T03:04:05.250Z',
    latencyMs: { total: 250, mediation: 0.4, upstream: 249 },
    identity: overrides.identity ?? { human: 'alice', session: 's1', binding: 'verified' },
    bundleEtag: `sha256:${'e'.repeat(64)}`,
    mediation,
    outcome: {
      status: overrides.error === undefined ? 200 : 502,
      ...(overrides.error === undefined ? {} : { error: overrides.error }),
    },
    response: evidence(mediation, overrides.args ?? '{"q":"x","token":"fake-secret"}'),
  };
}

describe('ReceiptDraft', () => {
  it('chains the receipt chainReceiptJson chains: same text, same hash', () => {
    expectSame(input({}), null);
    expectSame(input({}), `sha256:${'a'.repeat(64)}`);
    expectSame(input({ tools: ['search'] }), null); // no mediation block
    const { response: _none, ...noResponse } = input({});
    expectSame(noResponse, null);
  });

  it('keeps the notes in buildReceiptBody order: request side first, then the answer', () => {
    const hostile = input({
      model: fakeKey,
      identity: { human: fakeKey, session: `tg_${'F4KE'.repeat(5)}`, binding: 'unverified' },
      error: `bad key ${fakeKey}`,
      args: JSON.stringify({ token: 'x', password: 'y' }),
    });
    expectSame(hostile, null);
    const { draft, end } = split(hostile);
    const stored = JSON.parse(draft.chainJson(end, null).json);
    expect(stored.redacted_paths.slice(0, 4)).toEqual([
      'model',
      'identity.human',
      'identity.session',
      'outcome.error',
    ]);
  });

  it('equals the full build for any model, identity and error text', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constant(fakeKey),
      fc.constant('\ud800 lone'),
      fc.string({ minLength: 300, maxLength: 600 }),
    );
    // The engine refuses models it could not receipt (too long, lone surrogates) itself.
    const model = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constant(fakeKey));
    fc.assert(
      fc.property(model, text, fc.option(text, { nil: undefined }), (model, human, error) => {
        expectSame(
          input({
            model,
            identity: { human, binding: 'claimed' },
            ...(error === undefined ? {} : { error }),
          }),
          null,
        );
      }),
      { numRuns: 60 },
    );
  });

  it('chains an MCP receipt: its block, a tool result and a bounded error, in the same order', () => {
    const base = input({ error: `upstream said ${fakeKey}` });
    const mcp = {
      server: 'github',
      method: 'tools/call',
      session: 'sess-1',
      error: { code: -32603, message: `boom ${fakeKey} ${'x'.repeat(2000)}` },
    };
    const toolResults = {
      entries: [
        {
          tool_call_id: '7',
          action_id: `sha256:${'b'.repeat(64)}`,
          result_hash: `sha256:${'c'.repeat(64)}`,
          is_error: true,
          elapsed_ms: 1.5,
        },
      ],
      truncated: false,
    };
    expectSame({ ...base, mcp, toolResults }, null);
    expectSame({ ...base, mcp: { server: 'github', method: 'tools/list' } }, null);
    const { draft, end } = split({ ...base, mcp });
    const stored = JSON.parse(draft.chainJson(end, null).json);
    expect(stored.mcp.server).toBe('github');
    expect(stored.truncated_paths).toContain('mcp.error.message');
  });

  it('can chain twice with different ends (the notes of one do not leak into the other)', () => {
    const base = input({ error: `bad key ${fakeKey}` });
    const { draft, end } = split(base);
    const first = draft.chainJson(end, null);
    const second = draft.chainJson({ ...end, outcome: { status: 200 } }, null);
    expect(first).toEqual(chainReceiptJson(buildReceiptBody(base), null));
    const { error: _error, ...ok } = base.outcome;
    expect(second).toEqual(
      chainReceiptJson(buildReceiptBody({ ...base, outcome: { ...ok, status: 200 } }), null),
    );
  });
});

describe('canonicalizeMembers', () => {
  it('is canonicalize, with known members taken as they are', () => {
    const value = { b: [1, { z: 1, a: 2 }], a: 'x', c: undefined, d: { y: true } };
    expect(canonicalizeMembers(value, new Map())).toBe(canonicalize(value));
    const known = new Map([['d', { value: value.d, text: '"stand-in"' }]]);
    expect(canonicalizeMembers(value, known)).toBe(
      '{"a":"x","b":[1,{"a":2,"z":1}],"d":"stand-in"}',
    );
    // Known for another value: not used.
    const stale = new Map([['d', { value: { y: true }, text: '"stale"' }]]);
    expect(canonicalizeMembers(value, stale)).toBe(canonicalize(value));
  });

  it('fails as canonicalize fails, naming the path', () => {
    const bad = { ok: 1, deep: { n: Number.NaN } };
    expect(() => canonicalizeMembers(bad, new Map())).toThrow(CanonicalJsonError);
    expect(() => canonicalizeMembers(bad, new Map())).toThrow('deep.n');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => canonicalizeMembers(cyclic, new Map())).toThrow('cyclic');
  });
});
