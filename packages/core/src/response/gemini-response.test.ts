import { describe, expect, it } from 'vitest';
import {
  geminiDeclaration,
  geminiRequest,
  mediateGemini,
} from '../engine/surfaces/gemini-fixtures.ts';
import { bundleOf } from '../engine/test-fixtures.ts';
import { hashLenient } from '../hash/hash.ts';
import { deepFreeze } from '../json/deep-freeze.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { enforceGeminiResponse, PARTIAL_CALL_REASON } from './gemini-response.ts';
import type { ResponseContext } from './response-context.ts';

/** The response side of a request offering these tools under this policy. */
function contextFor(rules: unknown[], builtIns: JsonObject[] = []): ResponseContext {
  const body = geminiRequest(
    [
      geminiDeclaration('search_code'),
      geminiDeclaration('github/create_issue'),
      geminiDeclaration('delete_repo'),
    ],
    builtIns,
  );
  return mediateGemini(bundleOf({ rules: rules as never }), body).response;
}

const RULES = [
  { id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } },
  { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
];

function response(parts: JsonValue[], candidate: JsonObject = {}): JsonObject {
  return deepFreeze({
    candidates: [
      { content: { role: 'model', parts }, finishReason: 'STOP', index: 0, ...candidate },
    ],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'gemini-2.5-flash',
  }) as JsonObject;
}

const partsOf = (body: unknown) =>
  ((body as { candidates: Array<{ content: { parts: JsonValue[] } }> }).candidates[0]?.content
    .parts ?? []) as JsonValue[];
const candidateOf = (body: unknown) => (body as { candidates: JsonObject[] }).candidates[0];

describe('enforceGeminiResponse: function calls', () => {
  it('renames an allowed call back to the agent’s name and passes the rest as is', () => {
    const body = response([
      { text: 'Filing it.' },
      { functionCall: { name: 'gh_issue', args: { title: 'x' } } },
      { functionCall: { name: 'search_code', args: { q: 'y' }, id: 'c2' } },
    ]);
    const { body: out, evidence } = enforceGeminiResponse(body, contextFor(RULES));
    expect(partsOf(out)).toEqual([
      { text: 'Filing it.' },
      { functionCall: { name: 'github/create_issue', args: { title: 'x' } } },
      { functionCall: { name: 'search_code', args: { q: 'y' }, id: 'c2' } },
    ]);
    // Untouched parts are the same objects; metadata is kept.
    expect(partsOf(out)[2]).toBe(partsOf(body)[2]);
    expect((out as JsonObject).usageMetadata).toBe(body.usageMetadata);
    expect(evidence.tool_calls.map((c) => [c.id, c.name, c.provider_name, c.policy_state])).toEqual(
      [
        ['', 'github/create_issue', 'gh_issue', 'allowed'],
        ['c2', 'search_code', undefined, 'allowed'],
      ],
    );
    expect(evidence.tool_calls[1]?.arguments_hash).toBe(hashLenient({ q: 'y' }));
  });

  it('removes calls to hidden and undeclared tools, silently', () => {
    const body = response([
      { text: 'Cleaning up.' },
      { functionCall: { name: 'delete_repo', args: { repo: 'acme' } } },
      { functionCall: { name: 'github/create_issue', args: {} } },
    ]);
    const { body: out, evidence } = enforceGeminiResponse(body, contextFor(RULES));
    expect(partsOf(out)).toEqual([{ text: 'Cleaning up.' }]);
    expect(evidence.tool_calls.map((c) => [c.name, c.policy_state, c.reason])).toEqual([
      ['delete_repo', 'blocked', 'hidden'],
      // The agent's name is not what the provider was offered: undeclared for it.
      ['github/create_issue', 'blocked', 'not_declared'],
    ]);
    expect(body.candidates).toEqual(
      response([
        { text: 'Cleaning up.' },
        { functionCall: { name: 'delete_repo', args: { repo: 'acme' } } },
        { functionCall: { name: 'github/create_issue', args: {} } },
      ]).candidates,
    );
  });

  it('tells the agent why a call-time rule withheld a call, where the call was', () => {
    const ctx = contextFor([
      { id: 'no-search', action: 'deny', match: { name: 'search_code' }, message: 'Not today.' },
    ]);
    const { body: out, evidence } = enforceGeminiResponse(
      response([{ functionCall: { name: 'search_code', args: {} } }]),
      ctx,
    );
    expect(partsOf(out)).toEqual([{ text: 'Not today.' }]);
    expect(evidence.tool_calls[0]?.decision).toMatchObject({ outcome: 'deny', rule: 'no-search' });
    expect(candidateOf(out)?.finishReason).toBe('STOP');
  });

  it('leaves an empty text part in a turn that held only withheld calls', () => {
    const { body: out } = enforceGeminiResponse(
      response([{ functionCall: { name: 'delete_repo', args: {} } }]),
      contextFor(RULES),
    );
    expect(partsOf(out)).toEqual([{ text: '' }]);
  });

  it('never releases a fragment of a call (streamed arguments)', () => {
    const { body: out, evidence } = enforceGeminiResponse(
      response([
        {
          functionCall: {
            name: 'search_code',
            partialArgs: [{ jsonPath: '$.q', stringValue: 'a' }],
            willContinue: true,
          },
        },
      ]),
      contextFor(RULES),
    );
    expect(partsOf(out)).toEqual([{ text: '' }]);
    expect(evidence.tool_calls[0]).toMatchObject({
      name: 'search_code',
      policy_state: 'blocked',
      reason: PARTIAL_CALL_REASON,
    });
  });
});

describe('enforceGeminiResponse: built-in tool evidence', () => {
  const grounding = {
    webSearchQueries: ['capital of France'],
    groundingChunks: [
      { web: { uri: 'https://example.com/a', title: 'example.com' } },
      { web: { uri: 'https://example.com/b', title: 'example.com' } },
      { web: { uri: 'https://example.com/a', title: 'example.com' } },
    ],
    groundingSupports: [{ segment: { startIndex: 0, endIndex: 5 }, groundingChunkIndices: [0] }],
  };

  it('normalizes search grounding to web_search: queries hashed, sources listed', () => {
    const ctx = contextFor([], [{ googleSearch: {} }]);
    const body = response([{ text: 'Paris.' }], { groundingMetadata: grounding });
    const { body: out, evidence } = enforceGeminiResponse(body, ctx);
    expect(out).toBe(body);
    expect(evidence.hosted_tool_events).toEqual([
      {
        capability: 'wardwright.web_search.v1',
        provider_type: 'groundingMetadata:googleSearch',
        name: 'googleSearch',
        fidelity: 'provider_attested',
        input_hash: hashLenient(['capital of France']),
        policy_state: 'allowed',
        sources: ['https://example.com/a', 'https://example.com/b'],
      },
    ]);
  });

  it('attributes grounding to the legacy googleSearchRetrieval when that is what was offered', () => {
    const ctx = contextFor([], [{ googleSearchRetrieval: {} }]);
    const { evidence } = enforceGeminiResponse(
      response([{ text: 'Paris.' }], { groundingMetadata: grounding }),
      ctx,
    );
    expect(evidence.hosted_tool_events[0]).toMatchObject({
      name: 'googleSearchRetrieval',
      policy_state: 'allowed',
    });
  });

  it('strips grounding of a hidden search tool, and keeps the answer', () => {
    const ctx = contextFor(
      [{ id: 'no-search', action: 'hide', match: { name: 'googleSearch' } }],
      [{ googleSearch: {} }],
    );
    const { body: out, evidence } = enforceGeminiResponse(
      response([{ text: 'Paris.' }], { groundingMetadata: grounding }),
      ctx,
    );
    expect(candidateOf(out)?.groundingMetadata).toBeUndefined();
    expect(partsOf(out)).toEqual([{ text: 'Paris.' }]);
    expect(evidence.hosted_tool_events[0]?.policy_state).toBe('blocked');
  });

  it('reports grounding no tool was offered for as opaque, under its contract', () => {
    const { body: out, evidence } = enforceGeminiResponse(
      response([{ text: 'Paris.' }], { groundingMetadata: grounding }),
      contextFor([]),
    );
    expect(candidateOf(out)?.groundingMetadata).toBeDefined();
    expect(evidence.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.web_search.v1',
      fidelity: 'opaque',
      policy_state: 'opaque',
    });
  });

  it('normalizes URL context to url_fetch, failures as the error; strips it when hidden', () => {
    const urlContextMetadata = {
      urlMetadata: [
        { retrievedUrl: 'https://a.example', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS' },
        { retrievedUrl: 'https://b.example', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_PAYWALL' },
      ],
    };
    const body = response([{ text: 'Read them.' }], { urlContextMetadata });
    const allowed = enforceGeminiResponse(body, contextFor([], [{ urlContext: {} }]));
    expect(allowed.body).toBe(body);
    expect(allowed.evidence.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.url_fetch.v1',
      name: 'urlContext',
      sources: ['https://a.example', 'https://b.example'],
      error: 'URL_RETRIEVAL_STATUS_PAYWALL',
      policy_state: 'allowed',
    });
    const hidden = enforceGeminiResponse(
      body,
      contextFor(
        [{ id: 'h', action: 'hide', match: { name: 'urlContext' } }],
        [{ urlContext: {} }],
      ),
    );
    expect(candidateOf(hidden.body)?.urlContextMetadata).toBeUndefined();
  });

  it('normalizes code execution parts to code_exec; a hidden tool loses code and result', () => {
    const parts: JsonValue[] = [
      { executableCode: { language: 'PYTHON', code: 'print(6*7)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '42\n' } },
      { executableCode: { language: 'PYTHON', code: '1/0', id: 'x1' } },
      { codeExecutionResult: { outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError', id: 'x1' } },
      { text: 'It is 42.' },
    ];
    const allowed = enforceGeminiResponse(response(parts), contextFor([], [{ codeExecution: {} }]));
    expect(partsOf(allowed.body)).toEqual(parts);
    expect(
      allowed.evidence.hosted_tool_events.map((e) => [e.provider_type, e.policy_state, e.error]),
    ).toEqual([
      ['executableCode:codeExecution', 'allowed', undefined],
      ['codeExecutionResult:codeExecution', 'allowed', undefined],
      ['executableCode:codeExecution', 'allowed', undefined],
      ['codeExecutionResult:codeExecution', 'allowed', 'OUTCOME_FAILED'],
    ]);
    expect(allowed.evidence.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.code_exec.v1',
      fidelity: 'normalized',
      input_hash: hashLenient({ code: 'print(6*7)', language: 'PYTHON' }),
    });
    const hidden = enforceGeminiResponse(
      response(parts),
      contextFor(
        [{ id: 'h', action: 'hide', match: { name: 'codeExecution' } }],
        [{ codeExecution: {} }],
      ),
    );
    expect(partsOf(hidden.body)).toEqual([{ text: 'It is 42.' }]);
  });

  it('strips a server-side invocation of a hidden tool with its response', () => {
    const parts: JsonValue[] = [
      { toolCall: { id: 't1', toolType: 'GOOGLE_SEARCH_WEB', args: { query: 'x' } } },
      { toolResponse: { id: 't1', toolType: 'GOOGLE_SEARCH_WEB', response: { results: [] } } },
      { text: 'Done.' },
    ];
    const hidden = enforceGeminiResponse(
      response(parts),
      contextFor(
        [{ id: 'h', action: 'hide', match: { name: 'googleSearch' } }],
        [{ googleSearch: {} }],
      ),
    );
    expect(partsOf(hidden.body)).toEqual([{ text: 'Done.' }]);
    expect(hidden.evidence.hosted_tool_events.map((e) => [e.id, e.policy_state])).toEqual([
      ['t1', 'blocked'],
      ['t1', 'blocked'],
    ]);
    const allowed = enforceGeminiResponse(response(parts), contextFor([], [{ googleSearch: {} }]));
    expect(partsOf(allowed.body)).toEqual(parts);
  });
});

describe('enforceGeminiResponse: odd shapes', () => {
  it.each<[string, unknown]>([
    ['not an object', 'hello'],
    ['no candidates', { promptFeedback: { blockReason: 'SAFETY' } }],
    ['candidates not an array', { candidates: {} }],
    [
      'odd candidates and parts',
      { candidates: [null, { content: { parts: [1, null, 'x'] } }, {}] },
    ],
  ])('passes %s through with empty evidence', (_what, body) => {
    const { body: out, evidence } = enforceGeminiResponse(body, contextFor(RULES));
    expect(out).toBe(body);
    expect(evidence).toEqual({ tool_calls: [], hosted_tool_events: [] });
  });

  it('judges every candidate', () => {
    const body = deepFreeze({
      candidates: [
        { content: { parts: [{ functionCall: { name: 'gh_issue', args: {} } }] }, index: 0 },
        { content: { parts: [{ functionCall: { name: 'delete_repo', args: {} } }] }, index: 1 },
      ],
    });
    const { body: out, evidence } = enforceGeminiResponse(body, contextFor(RULES));
    expect((out as { candidates: JsonObject[] }).candidates.map((c) => c.content)).toEqual([
      { parts: [{ functionCall: { name: 'github/create_issue', args: {} } }] },
      { parts: [{ text: '' }] },
    ]);
    expect(evidence.tool_calls.map((c) => c.policy_state)).toEqual(['allowed', 'blocked']);
  });
});
