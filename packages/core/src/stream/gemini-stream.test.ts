import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  geminiDeclaration,
  geminiRequest,
  mediateGemini,
} from '../engine/surfaces/gemini-fixtures.ts';
import { bundleOf } from '../engine/test-fixtures.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { enforceGeminiResponse } from '../response/gemini-response.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { certainlyNoWork, createGeminiStreamMediator } from './gemini-stream.ts';
import { holdActionableTail } from './held-tail.ts';
import { createSseParser } from './sse.ts';

/** A request offering three functions and code execution; one hidden, one renamed. */
function context(): ResponseContext {
  const body = geminiRequest(
    [
      geminiDeclaration('search_code'),
      geminiDeclaration('github/create_issue'),
      geminiDeclaration('delete_repo'),
    ],
    [{ codeExecution: {} }],
  );
  const bundle = bundleOf({
    rules: [
      { id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } },
      { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
      { id: 'no-exec', action: 'hide', match: { name: 'codeExecution' } },
    ],
  });
  return mediateGemini(bundle, body, {}, true).response;
}

/** What must never reach the agent: the hidden call and the hidden tool's code. */
const LEAKS = ['delete_repo', 'evil-zq', 'executableCode', 'rm -rf'];

const META = { usageMetadata: { promptTokenCount: 3, totalTokenCount: 4 }, modelVersion: 'm' };
function chunk(parts: JsonValue[], candidate: JsonObject = {}): JsonObject {
  return { candidates: [{ content: { role: 'model', parts }, index: 0, ...candidate }], ...META };
}
const sse = (chunks: JsonValue[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');

const TEXT_1 = chunk([{ text: 'Let me ' }]);
const TEXT_2 = chunk([{ text: 'check.' }]);
const ALLOWED = chunk([{ functionCall: { name: 'gh_issue', args: { title: 'flaky' } } }]);
const BLOCKED = chunk([{ functionCall: { name: 'delete_repo', args: { repo: 'evil-zq' } } }]);
const CODE = chunk([
  { executableCode: { language: 'PYTHON', code: 'import os; os.system("rm -rf /")' } },
  { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '' } },
]);
const LAST = chunk([{ text: '' }], { finishReason: 'STOP' });
const MIXED = sse([TEXT_1, TEXT_2, ALLOWED, BLOCKED, CODE, LAST]);

function feedAll(pieces: Array<string | Uint8Array>, ctx = context()) {
  const mediator = createGeminiStreamMediator(ctx);
  const outputs = pieces.map((p) => mediator.push(p));
  outputs.push(mediator.end());
  return { output: outputs.join(''), outputs, evidence: mediator.evidence() };
}

function dataOf(output: string): unknown[] {
  const parser = createSseParser();
  return [...parser.push(output), ...parser.end()].map((e) => JSON.parse(e.data) as unknown);
}

/** Splits bytes at the given offsets. */
function piecesOf(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of at) {
    pieces.push(bytes.slice(from, cut));
    from = cut;
  }
  pieces.push(bytes.slice(from));
  return pieces;
}

/** The parts the agent ends up with, as the @google/genai SDK collects a stream's chunks. */
function partsReceived(output: string): JsonValue[] {
  return dataOf(output).flatMap(
    (c) =>
      ((c as { candidates?: JsonObject[] }).candidates?.[0]?.content as JsonObject)?.parts ?? [],
  ) as JsonValue[];
}

describe('createGeminiStreamMediator', () => {
  it('passes text chunks through byte for byte, in the push that completed them', () => {
    const events = MIXED.split(/(?<=\n\n)/);
    const { outputs } = feedAll(events);
    expect(outputs[0]).toBe(events[0]);
    expect(outputs[1]).toBe(events[1]);
  });

  it('renames allowed calls back, and removes hidden calls and hidden built-in parts', () => {
    const { output, evidence } = feedAll([MIXED]);
    expect(partsReceived(output)).toEqual([
      { text: 'Let me ' },
      { text: 'check.' },
      { functionCall: { name: 'github/create_issue', args: { title: 'flaky' } } },
      { text: '' },
      { text: '' },
      { text: '' },
    ]);
    for (const leak of LEAKS) expect(output).not.toContain(leak);
    expect(evidence.tool_calls.map((c) => [c.name, c.policy_state])).toEqual([
      ['github/create_issue', 'allowed'],
      ['delete_repo', 'blocked'],
    ]);
    expect(evidence.hosted_tool_events.map((e) => [e.name, e.policy_state])).toEqual([
      ['codeExecution', 'blocked'],
      ['codeExecution', 'blocked'],
    ]);
  });

  it('keeps every chunk a whole GenerateContentResponse on one data line', () => {
    const { output } = feedAll([MIXED]);
    const events = output.split('\n\n').filter((e) => e !== '');
    expect(events).toHaveLength(6);
    for (const event of events) {
      expect(event.startsWith('data: ')).toBe(true);
      expect(event.slice(6)).not.toContain('\n');
      const parsed = JSON.parse(event.slice(6)) as JsonObject;
      expect(Array.isArray(parsed.candidates)).toBe(true);
      expect(parsed.usageMetadata).toEqual(META.usageMetadata);
    }
  });

  it('decides each chunk as the non-streaming enforcement decides the same parts', () => {
    const streamed = feedAll([MIXED]);
    const parts = [TEXT_1, TEXT_2, ALLOWED, BLOCKED, CODE, LAST].flatMap((c) =>
      partsReceived(sse([c])),
    );
    const whole = enforceGeminiResponse(chunk(parts), context());
    expect(streamed.evidence.tool_calls).toEqual(whole.evidence.tool_calls);
    expect(streamed.evidence.hosted_tool_events).toEqual(whole.evidence.hosted_tool_events);
  });

  it('passes only the error object of an error chunk', () => {
    const hostile = {
      error: { code: 500, message: 'boom', status: 'INTERNAL', details: [{ stack: 'x' }] },
      ...BLOCKED,
    };
    const { output } = feedAll([sse([TEXT_1, hostile])]);
    for (const leak of LEAKS) expect(output).not.toContain(leak);
    expect(dataOf(output)[1]).toEqual({
      error: { code: 500, message: 'boom', status: 'INTERNAL' },
    });
  });

  it('passes comments, malformed JSON and other shapes through in order', () => {
    const stream = `: keep-alive\n\ndata: {not json\n\ndata: {"promptFeedback":{"blockReason":"SAFETY"}}\n\n`;
    expect(feedAll([stream]).output).toBe(stream);
  });

  it('holds everything from the first call or finish reason until the receipt is durable', () => {
    const held = holdActionableTail(createGeminiStreamMediator(context()), 'gemini');
    const events = MIXED.split(/(?<=\n\n)/);
    const early = events.map((e) => held.push(e)).join('');
    expect(early).toBe(events[0] + (events[1] as string));
    const tail = held.end();
    expect(partsReceived(tail)[0]).toEqual({
      functionCall: { name: 'github/create_issue', args: { title: 'flaky' } },
    });
  });
});

describe('gemini stream properties', () => {
  const allowedCall = fc
    .record({ title: fc.string({ maxLength: 20 }) })
    .map((args) => ({ functionCall: { name: 'gh_issue', args } }));
  const blockedCall = fc
    .string({ maxLength: 10 })
    .map((tail) => ({ functionCall: { name: 'delete_repo', args: { repo: `evil-zq${tail}` } } }));
  const text = fc.string({ maxLength: 30 }).map((t) => ({ text: t }));
  const code = fc.constant({ executableCode: { language: 'PYTHON', code: 'rm -rf' } });
  const part = fc.oneof(text, allowedCall, blockedCall, code);
  const stream = fc
    .array(fc.array(part, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 })
    .map((chunks) =>
      sse(
        chunks.map((parts, i) =>
          chunk(parts, i === chunks.length - 1 ? { finishReason: 'STOP' } : {}),
        ),
      ),
    );

  it('never leaks a withheld call, releases every allowed one, for any split of the bytes', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 30 }), (text, cuts) => {
        const whole = feedAll([text]);
        const split = feedAll(piecesOf(new TextEncoder().encode(text), cuts));
        expect(split.output).toBe(whole.output);
        expect(split.evidence).toEqual(whole.evidence);
        for (const leak of LEAKS) expect(whole.output).not.toContain(leak);
        const released = partsReceived(whole.output).filter(
          (p) => (p as JsonObject).functionCall !== undefined,
        );
        const allowed = whole.evidence.tool_calls.filter((c) => c.policy_state === 'allowed');
        expect(released).toHaveLength(allowed.length);
        for (const call of released) {
          expect(((call as JsonObject).functionCall as JsonObject).name).toBe(
            'github/create_issue',
          );
        }
        expect(whole.evidence.tool_calls.length).toBe((text.match(/"functionCall"/g) ?? []).length);
      }),
      { numRuns: 200 },
    );
  });

  it('skips the parse only for chunks enforcement would leave unchanged', () => {
    const keys = ['text', 'functionCall', 'executableCode', 'groundingMetadata', 'thought'];
    const written = fc
      .tuple(
        fc.array(
          fc.dictionary(fc.constantFrom(...keys), fc.constant({ name: 'delete_repo' }), {
            maxKeys: 2,
          }),
          { maxLength: 3 },
        ),
        fc.nat(),
      )
      .map(([parts, seed]) => {
        // Some letters of the keys written as \u escapes: what a provider may legally send.
        let nth = seed % 8;
        return JSON.stringify(chunk(parts)).replace(/"([a-z])/g, (match, c: string) =>
          nth-- === 0 ? `"\\u00${c.charCodeAt(0).toString(16)}` : match,
        );
      });
    fc.assert(
      fc.property(written, (data) => {
        if (!certainlyNoWork(data)) return;
        const parsed = JSON.parse(data) as unknown;
        expect(enforceGeminiResponse(parsed, context()).body).toBe(parsed);
      }),
      { numRuns: 1000 },
    );
  });
});
