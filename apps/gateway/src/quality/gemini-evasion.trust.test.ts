import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedReceipt } from '../faults/control-plane.ts';
import { scriptedConversation } from './receipt-evasion-inputs.ts';
import {
  type Attempt,
  GEMINI_STREAM_PATH,
  jsonWithLoneSurrogates,
  type Outcome,
  type ReceiptStack,
  startReceiptStack,
} from './receipt-stack.ts';

/**
 * The receipt-evasion classes of receipt-evasion.trust.test.ts on the Gemini surface, whose
 * request differs in shape (nested `functionDeclarations`, `contents[].parts[]`, the model and
 * the stream flag in the URL): every hostile input is refused before the provider with a 400
 * naming the field, or forwarded with exactly one stored receipt — JSON and `alt=sse` alike.
 * (The property test of that file covers Gemini bodies too.)
 */

let stack: ReceiptStack;

beforeAll(async () => {
  stack = await startReceiptStack('edge-evasion-gemini');
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** Secret-shaped values, built at run time (never literal in the repository). */
/** Google API keys are `AIza` and 35 more characters (39 in all). */
const fakeGoogleKey = () => `${'AIza'}Sy${randomBytes(17).toString('hex').slice(0, 33)}`;
const fakeToolgateToken = () => `${'tg_'}${randomBytes(16).toString('hex')}`;

const declaration = (name: string) => ({
  name,
  parametersJsonSchema: { type: 'object', properties: {} },
});

function geminiBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    tools: [
      { functionDeclarations: [declaration('search'), declaration('delete_repo')] },
      { googleSearch: {} },
    ],
    ...extra,
  };
}

interface Case {
  name: string;
  attempt: Attempt;
  /** A refusal before the provider: the status and what the message must name. */
  refused?: { status: number; names: RegExp };
}

function attempt(stream: boolean, body: string, headers?: Record<string, string>): Attempt {
  return {
    surface: 'gemini',
    body,
    ...(stream ? { path: GEMINI_STREAM_PATH } : {}),
    ...(headers ? { headers } : {}),
  };
}

function agentCases(stream: boolean): Case[] {
  const json = (extra: Record<string, unknown>) => jsonWithLoneSurrogates(geminiBody(extra));
  const refuse = (name: string, body: string, names: RegExp, headers?: Record<string, string>) => ({
    name,
    attempt: attempt(stream, body, headers),
    refused: { status: 400, names },
  });
  const declared = (name: string) => ({ tools: [{ functionDeclarations: [declaration(name)] }] });
  return [
    refuse(
      'U+0000 in a declaration name',
      json(declared('search\u0000')),
      /tools\[0\]\.functionDeclarations\[0\].*U\+0000/,
    ),
    refuse(
      'U+0000 in a declaration’s schema',
      json({
        tools: [
          {
            functionDeclarations: [
              { ...declaration('search'), parametersJsonSchema: { description: 'a\u0000b' } },
            ],
          },
        ],
      }),
      /tools\[0\]\.functionDeclarations\[0\]\.parametersJsonSchema\.description: must not contain U\+0000/,
    ),
    refuse(
      'lone surrogate in a declaration name',
      json(declared('search@LONE@')),
      /tools\[0\]\.functionDeclarations\[0\]/,
    ),
    refuse(
      'lone surrogate in a part',
      json({ contents: [{ role: 'user', parts: [{ text: '@LONE@' }] }] }),
      /contents\[0\]\.parts\[0\]\.text/,
    ),
    refuse(
      'lone surrogate in a key',
      json({ generationConfig: { '@LONE@': 'x' } }),
      /generationConfig\.\(key\)/,
    ),
    refuse(
      'huge declaration name',
      json(declared('t'.repeat(100_000))),
      /tools\[0\]\.functionDeclarations\[0\].*name: must be at most 256/,
    ),
    refuse(
      '600 declarations',
      json({
        tools: [
          { functionDeclarations: Array.from({ length: 600 }, (_, i) => declaration(`t${i}`)) },
        ],
      }),
      /tools: must declare at most 512/,
    ),
    refuse('a body model other than the path’s', json({ model: 'other-model' }), /model/),
    refuse('huge x-user-id', json({}), /x-user-id: must be at most/, {
      'x-user-id': 'u'.repeat(300),
    }),
    refuse('secret-shaped x-user-id', json({}), /x-user-id: looks like a credential/, {
      'x-user-id': fakeGoogleKey(),
    }),
    refuse('Toolgate token in x-session-id', json({}), /x-session-id: looks like a credential/, {
      'x-session-id': fakeToolgateToken(),
    }),
    {
      // Headers arrive as Latin-1: what a lenient encoder writes for U+D800 is three characters.
      name: 'surrogate bytes in identity headers',
      attempt: attempt(stream, json({}), {
        'x-user-id': '\u00ed\u00a0\u0080',
        'x-session-id': 'a\u00ffb',
      }),
    },
  ];
}

function providerCases(stream: boolean): Case[] {
  const via = (name: string, script: unknown) => ({
    name,
    attempt: attempt(
      stream,
      jsonWithLoneSurrogates(geminiBody(scriptedConversation('gemini', JSON.stringify(script)))),
    ),
  });
  const lone = 'x@LONE@y'.replace('@LONE@', '\ud800');
  return [
    via('lone surrogate in the provider’s call name', { call: lone }),
    via('U+0000 in the provider’s call name', { call: 'a\u0000b' }),
    via('U+0000 in the provider’s error', { error: { status: 400, message: 'bad\u0000input' } }),
    via('lone surrogate in the provider’s call arguments', {
      call: 'search',
      arguments: { q: lone },
    }),
    via('huge call name from the provider', { call: 'n'.repeat(200_000) }),
    via('many parallel calls with long names', {
      calls: Array.from({ length: 200 }, (_, i) => ({
        name: `${'c'.repeat(900)}${i}`,
        arguments: { i },
      })),
    }),
    via('provider error with a lone surrogate, a key and 100 KB', {
      error: { status: 500, message: `${lone} ${fakeGoogleKey()} ${'e'.repeat(100_000)}` },
    }),
    via('grounded search', { hosted: 'web_search' }),
    via('code execution', { hosted: 'code_execution' }),
    via('stream cut after three events', { cut: 3 }),
  ];
}

describe('receipt evasion on the Gemini surface', () => {
  it('every class of hostile input is refused before the provider, or receipted once', async () => {
    const outcomes: Array<{ name: string; outcome: Outcome }> = [];
    for (const stream of [false, true]) {
      for (const testCase of [...agentCases(stream), ...providerCases(stream)]) {
        const outcome = await stack.send(testCase.attempt);
        const what = `${testCase.name} (stream: ${stream}): ${outcome.status} ${outcome.text.slice(0, 300)}`;
        if (testCase.refused) {
          expect(outcome.status, what).toBe(testCase.refused.status);
          expect(outcome.reachedProvider, what).toBe(0);
          expect(outcome.receiptId, what).toBeNull();
          expect(outcome.text, what).toMatch(testCase.refused.names);
        } else {
          expect(outcome.reachedProvider, what).toBe(1);
          expect(outcome.receiptId, what).toMatch(/^rcpt_/);
        }
        outcomes.push({ name: testCase.name, outcome });
      }
    }
    const forwarded = outcomes.filter(({ outcome }) => outcome.reachedProvider > 0);
    const { missing, unexpected } = await stack.unreceipted(forwarded.map((f) => f.outcome));
    expect(missing.map((o) => o.text.slice(0, 200))).toEqual([]);
    expect(unexpected).toEqual([]);

    // What the stored receipts hold: no secret, no lone surrogate, what was cut is named.
    for (const { name, outcome } of forwarded) {
      const receipt = await storedReceipt(stack.api, outcome.receiptId as string);
      const text = JSON.stringify(receipt);
      expect(text, name).not.toMatch(/AIzaSy[0-9a-f]{8}|tg_[0-9a-f]{8}/);
      expect(text, name).not.toMatch(/\\ud800/i);
      expect(Buffer.byteLength(text), name).toBeLessThan(64 * 1024 + 3 * 1024 * 1024);
      if (name.startsWith('huge call name')) {
        expect(receipt.truncated_paths, name).toContain('response.tool_calls[0].name');
      }
    }
  }, 120_000);
});
