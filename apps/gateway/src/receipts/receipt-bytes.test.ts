import {
  buildReceiptBody,
  chainReceiptJson,
  compileBundle,
  mediateRequest,
  type ReceiptInput,
} from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { chainReceiptBytes } from './receipt-bytes.ts';

const bundle = compileBundle({
  policies: [
    {
      name: 'p',
      generation: 3,
      spec: {
        rules: [
          { id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } },
          { id: 'rename-search', action: 'rename', match: { name: 'search' }, alias: 'find' },
        ],
      },
    },
  ],
});

const tool = (name: string, description = '') => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: {} } },
});

function mediated(tools: unknown[]) {
  return mediateRequest(bundle, {
    surface: 'openai-chat',
    body: { model: 'gpt-ünïcode ✓', messages: [], tools },
    identity: {},
  });
}

function input(mediation: ReceiptInput['mediation'], extra: Partial<ReceiptInput> = {}) {
  return {
    id: 'rcpt_1',
    gateway: 'g',
    receivedAt: '2026-01-01T00:00:00.000Z',
    completedAt: '2026-01-01T00:00:01.000Z',
    latencyMs: { total: 1.5, mediation: 0.1, upstream: 0.9 },
    identity: { human: 'ädä', binding: 'unverified' as const },
    bundleEtag: '"e1"',
    mediation,
    outcome: { status: 200 },
    ...extra,
  };
}

describe('chainReceiptBytes', () => {
  const withTools = mediated([
    tool('search', 'Sucht — “quoted” \\ and \u2028'),
    tool('delete_repo'),
    tool('emoji_🚀'),
  ]);
  const cases = {
    'mediated, with response evidence': input(withTools, {
      response: {
        tool_calls: [
          {
            id: 'call_1',
            name: 'search',
            provider_name: 'find',
            arguments_hash: `sha256:${'a'.repeat(64)}`,
            action_id: 'act_1',
            policy_state: 'allowed',
            redacted_arguments: ['token'],
          },
        ],
        hosted_tool_events: [],
      },
    }),
    'nothing mediated (no mediation block)': input(mediated([tool('read_file')])),
    'no tools at all, an error outcome': input(mediated([]), {
      outcome: { status: 502, error: 'upstream unavailable (ECONNREFUSED)' },
    }),
  } satisfies Record<string, ReceiptInput>;

  for (const [name, receiptInput] of Object.entries(cases)) {
    it(`is byte for byte chainReceiptJson: ${name}`, () => {
      const body = buildReceiptBody(receiptInput);
      for (const prev of [null, `sha256:${'b'.repeat(64)}`]) {
        const expected = chainReceiptJson(body, prev);
        const actual = chainReceiptBytes(body, prev);
        const joined = Buffer.concat(actual.pieces);
        expect(joined.toString('utf8')).toBe(expected.json);
        expect(actual.hash).toBe(expected.hash);
        expect(actual.byteLength).toBe(joined.length);
      }
    });
  }

  it('encodes the frozen catalog parts once and shares them between receipts', () => {
    const first = chainReceiptBytes(buildReceiptBody(input(withTools)), null);
    const second = chainReceiptBytes(
      buildReceiptBody(input(withTools, { id: 'rcpt_2' })),
      first.hash,
    );
    const shared = first.pieces.filter((piece) => second.pieces.includes(piece));
    // `tools` and `wardwright_tool_mediation`: the same Buffer objects, not re-serialized.
    expect(shared).toHaveLength(2);
    expect(second.hash).not.toBe(first.hash);
  });

  it('serializes values that are not frozen every time (a later change shows)', () => {
    const body = buildReceiptBody(input(withTools));
    const mutable = { ...body, tools: body.tools.map((t) => ({ ...t })) };
    const before = chainReceiptBytes(mutable, null).hash;
    (mutable.tools[0] as { name: string }).name = 'changed';
    const after = chainReceiptBytes(mutable, null);
    expect(after.hash).not.toBe(before);
    expect(after.hash).toBe(chainReceiptJson(mutable, null).hash);
  });
});
