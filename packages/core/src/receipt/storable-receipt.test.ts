import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mediateRequest } from '../engine/mediate-request.ts';
import { anthropicRequest, bundleOf, openAIRequest, openAITool } from '../engine/test-fixtures.ts';
import { ValidationError } from '../errors.ts';
import type { ToolCallEvidence, ToolResults } from '../index.ts';
import { isWellFormedString } from '../json/well-formed-text.ts';
import { buildReceiptBody, type ReceiptInput } from './build-receipt.ts';
import { chainReceiptJson } from './chain.ts';
import {
  MAX_STORED_RECEIPT_BYTES,
  RECEIPT_LIMITS,
  STORED_RECEIPT_BYTES_PER_POLICY,
} from './receipt-limits.ts';
import { ReceiptBody, type ResponseEvidence } from './receipt-schema.ts';

/**
 * A receipt always builds, hashes and stays small, whatever the agent and the provider sent
 * (issue #19, items 1, 2 and 7): agent values past the limits are refused by the engine before
 * the provider is called; provider values are made storable.
 */

const bundle = bundleOf({
  rules: [{ id: 'hide-deletes', action: 'hide', match: { name: 'delete_*' } }],
});
const LONE = '\ud800';
/** Characters JSON escapes as `\u00XX`: the most bytes per character a receipt can hold. */
const worst = (n: number) => '\u0001'.repeat(n);
const fakeKey = () => `${'sk-'}proj-${'F4KE'.repeat(6)}`;

function input(overrides: Partial<ReceiptInput> = {}): ReceiptInput {
  const mediation = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: openAIRequest([openAITool('search'), openAITool('delete_repo')]),
  });
  return {
    id: 'rcpt_1',
    gateway: 'gw-1',
    receivedAt: '2026-01-02T03:04:05.000Z',
    completedAt: '2026-01-02T03:04:05.250Z',
    latencyMs: { total: 250, mediation: 0.4, upstream: 249 },
    identity: { human: 'alice', binding: 'unverified' },
    bundleEtag: `sha256:${'e'.repeat(64)}`,
    mediation,
    outcome: { status: 200 },
    ...overrides,
  };
}

function hostileCall(text: string, i: number): ToolCallEvidence {
  return {
    id: `${text}${i}`,
    name: text,
    provider_name: text,
    resolved_tool: text,
    arguments_hash: `sha256:${'a'.repeat(64)}`,
    action_id: `act_${'b'.repeat(32)}`,
    policy_state: 'blocked',
    reason: text,
    redacted_arguments: Array.from({ length: 50 }, () => text),
  };
}

function hostileEvidence(text: string, count: number): ResponseEvidence {
  return {
    tool_calls: Array.from({ length: count }, (_, i) => hostileCall(text, i)),
    hosted_tool_events: Array.from({ length: count }, (_, i) => ({
      id: `${text}${i}`,
      capability: text,
      provider_type: text,
      name: text,
      fidelity: 'opaque' as const,
      policy_state: 'opaque' as const,
      sources: Array.from({ length: 50 }, () => text),
      error: text,
    })),
    finish_reason: text,
  };
}

/** Results an agent sent back, with ids as long as the text: the receipt cuts both. */
function hostileResults(text: string, count: number): ToolResults {
  return {
    truncated: true,
    entries: Array.from({ length: count }, (_, i) => ({
      tool_call_id: `${text}${i}`,
      action_id: `act_${'c'.repeat(32)}`,
      result_hash: `sha256:${'d'.repeat(64)}`,
      is_error: true,
      elapsed_ms: Number.MAX_SAFE_INTEGER,
      redacted_result: Array.from({ length: 50 }, () => text),
    })),
  };
}

function storedBytes(body: ReceiptBody): number {
  return Buffer.byteLength(chainReceiptJson(body, null).json, 'utf8');
}

describe('a receipt from hostile provider output', () => {
  it('always builds, hashes and stays under the stated bound, whatever the sizes', () => {
    for (const text of [worst(1_000_000), 'x'.repeat(1_000_000), `${LONE}${'é'.repeat(5000)}`]) {
      const body = buildReceiptBody(
        input({
          identity: {
            human: worst(RECEIPT_LIMITS.identityClaim),
            service: worst(RECEIPT_LIMITS.identityClaim),
            session: worst(RECEIPT_LIMITS.identityClaim),
            binding: 'unverified',
          },
          outcome: { status: 502, error: text },
          response: hostileEvidence(text, 1000),
          toolResults: hostileResults(text, 1000),
        }),
      );
      expect(ReceiptBody.parse(body)).toEqual(body);
      expect(body.truncated_paths).toContain('tool_results');
      const bound = MAX_STORED_RECEIPT_BYTES + STORED_RECEIPT_BYTES_PER_POLICY;
      expect(storedBytes(body)).toBeLessThanOrEqual(bound);
      expect(body.truncated_paths).toContain('response.tool_calls');
      expect(body.truncated_paths).toContain('outcome.error');
      expect(body.truncated_paths?.length).toBeLessThanOrEqual(RECEIPT_LIMITS.truncatedPaths);
      expect(body.redacted_paths.length).toBeLessThanOrEqual(RECEIPT_LIMITS.redactedPaths);
    }
  });

  it('replaces lone surrogates anywhere the provider put them', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const body = buildReceiptBody(
          input({ outcome: { status: 500, error: text }, response: hostileEvidence(text, 2) }),
        );
        expect(() => chainReceiptJson(body, null)).not.toThrow();
        expect(isWellFormedString(JSON.stringify(body))).toBe(true);
      }),
      { numRuns: 100 },
    );
    const body = buildReceiptBody(
      input({ response: hostileEvidence(`call${LONE}`, 1), outcome: { status: 200 } }),
    );
    expect(body.response?.tool_calls[0]?.name).toBe('call\ufffd');
    // PostgreSQL text cannot hold U+0000 either: the API would refuse the receipt for good.
    const nul = buildReceiptBody(
      input({
        response: hostileEvidence('a\u0000b', 1),
        outcome: { status: 400, error: '\u0000' },
      }),
    );
    expect(JSON.stringify(nul)).not.toContain('\\u0000');
  });

  it('keeps every field of a call decision, observe mode included', () => {
    const decision = {
      outcome: 'allow' as const,
      observed: { outcome: 'deny' as const, rule: 'pr-only', policy: 'trial' },
    };
    const call = { ...hostileCall('create_pull_request', 0), policy_state: 'allowed' as const };
    const response: ResponseEvidence = {
      tool_calls: [{ ...call, decision }],
      hosted_tool_events: [],
    };
    const body = buildReceiptBody(input({ response }));
    expect(body.response?.tool_calls[0]?.decision).toEqual(decision);
    expect(ReceiptBody.parse(body).response?.tool_calls[0]?.decision).toEqual(decision);
  });

  it('says nothing was cut when nothing was (receipts as before)', () => {
    const body = buildReceiptBody(input());
    expect(body).not.toHaveProperty('truncated_paths');
    expect(body.redacted_paths).toEqual([]);
  });
});

describe('secret-shaped values the agent chose', () => {
  it('are redacted from the model, the identity claims and the error, and the paths named', () => {
    const key = fakeKey();
    const mediation = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: openAIRequest([], { model: key }),
    });
    const body = buildReceiptBody(
      input({
        mediation,
        identity: { human: key, session: `tg_${'F4KE'.repeat(5)}`, binding: 'unverified' },
        outcome: { status: 401, error: `bad key ${key}` },
      }),
    );
    expect(JSON.stringify(body)).not.toContain('F4KE');
    expect(body.redacted_paths).toEqual([
      'model',
      'identity.human',
      'identity.session',
      'outcome.error',
    ]);
  });
});

describe('agent values a receipt could not hold', () => {
  const refused = (surface: 'openai-chat' | 'anthropic-messages', body: unknown): string => {
    try {
      mediateRequest(bundle, { surface, body });
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).message;
    }
    throw new Error('not refused');
  };

  it('are refused before the provider is called, naming the field', () => {
    const long = 'a'.repeat(RECEIPT_LIMITS.toolName + 1);
    expect(refused('openai-chat', openAIRequest([], { model: 'm'.repeat(9_000_000) }))).toMatch(
      /model: must be at most 256 characters/,
    );
    expect(
      refused('openai-chat', openAIRequest([openAITool('ok'), openAITool('b'), openAITool(long)])),
    ).toMatch(/tools\[2\]\.function\.name: must be at most 256 characters/);
    expect(
      refused('anthropic-messages', anthropicRequest([{ name: 'x', type: 'y'.repeat(129) }])),
    ).toMatch(/tools\[0\]\.type: must be at most 128 characters/);
    expect(
      refused('anthropic-messages', anthropicRequest([], { mcp_servers: [{ name: long }] })),
    ).toMatch(/mcp_servers\[0\]\.name/);
    const many = Array.from({ length: RECEIPT_LIMITS.tools + 1 }, (_, i) => openAITool(`t${i}`));
    expect(refused('openai-chat', openAIRequest(many))).toMatch(/tools: must hold at most 512/);
    expect(refused('openai-chat', openAIRequest([], { model: 'gpt\u0000' }))).toMatch(
      /model: must not contain U\+0000/,
    );
  });
});
