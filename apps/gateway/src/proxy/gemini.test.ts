import { ApiError, type Content, type GenerateContentResponse } from '@google/genai';
import { hashLenient, type Receipt } from '@toolgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  geminiAgent,
  geminiTools,
  GEMINI_TEST_MODEL as MODEL,
  receiptIdOf,
  say,
} from '../testing/gemini-agent.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * The Gemini surface through a real gateway in front of the mock provider, with the official
 * `@google/genai` client as the agent: what the provider sees (every request-side action, a
 * Gemini-legal alias for an MCP name), calls renamed back and withheld, JSON and SSE, the
 * function-call loop with its history renamed and its results receipted, bad input and hostile
 * paths refused before anything is forwarded.
 */

let gw: TestGateway;
const TOOLS = geminiTools([
  'search_code',
  'create_pull_request',
  'fetch_url',
  'github/create_issue',
  'jira/create_ticket',
]);

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'guardrails',
      spec: {
        rules: [
          { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
          {
            id: 'scope',
            action: 'augment',
            match: { name: 'search_code' },
            description_append: 'Only acme repos.',
          },
          {
            id: 'vetted-fetch',
            action: 'replace',
            match: { name: 'fetch_url' },
            tool: {
              name: 'fetch_url',
              description: 'Vetted fetch',
              parameters: { type: 'object', properties: { url: { type: 'string' } } },
            },
          },
          { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
        ],
      },
    },
  ]);
});
afterAll(() => gw.close());
beforeEach(() => gw.mock.requests.clear());

const agent = () => geminiAgent(gw.url);

/** What the provider last saw. */
function lastProviderRequest(): { path: string; body: Record<string, unknown> } {
  const [last] = gw.mock.requests.last(1);
  return { path: last?.path ?? '', body: last?.body as Record<string, unknown> };
}
const declared = (body: Record<string, unknown>) =>
  ((body.tools as Array<{ functionDeclarations?: Array<Record<string, unknown>> }>) ?? []).flatMap(
    (t) => t.functionDeclarations ?? [],
  );

async function receipt(id: string | undefined): Promise<Receipt> {
  const found = (await servedReceipts(gw.spool)).find((r) => r.id === id);
  if (!found) throw new Error(`no receipt ${id}`);
  return found;
}

async function streamed(contents: string | Content[], extra: object = {}) {
  const stream = await agent().models.generateContentStream({
    model: MODEL,
    contents,
    config: { tools: TOOLS, ...extra },
  });
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('Gemini through the gateway (official @google/genai SDK)', () => {
  it('shows the provider exactly the mediated tools, with a Gemini-legal alias', async () => {
    const response = await agent().models.generateContent({
      model: MODEL,
      contents: 'list your tools',
      config: {
        tools: TOOLS,
        toolConfig: {
          functionCallingConfig: {
            mode: 'ANY' as never,
            allowedFunctionNames: ['create_pull_request', 'github/create_issue'],
          },
        },
      },
    });
    const seen = lastProviderRequest();
    expect(seen.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(declared(seen.body).map((d) => d.name)).toEqual([
      'search_code',
      'fetch_url',
      'gh_issue',
      'jira_create_ticket',
    ]);
    expect(declared(seen.body)[0]?.description).toBe('search_code tool\n\nOnly acme repos.');
    expect(declared(seen.body)[1]).toEqual({
      name: 'fetch_url',
      description: 'Vetted fetch',
      parametersJsonSchema: { type: 'object', properties: { url: { type: 'string' } } },
    });
    // The hidden tool is named nowhere; the renamed one by its alias.
    expect(seen.body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['gh_issue'] },
    });
    expect(response.text).toBe(
      'mock: 4 tools: search_code, fetch_url, gh_issue, jira_create_ticket',
    );
    const recorded = await receipt(receiptIdOf(response));
    expect([recorded.surface, recorded.model, recorded.stream]).toEqual(['gemini', MODEL, false]);
    expect(recorded.wardwright_tool_mediation?.applied_rules.map((r) => r.id)).toEqual([
      'hide-pr',
      'scope',
      'vetted-fetch',
      'gh',
    ]);
  });

  it('renames calls back to the agent’s names, JSON and streamed', async () => {
    const script = say({
      calls: [
        { name: 'gh_issue', arguments: { title: 'flaky ci' } },
        { name: 'jira_create_ticket', arguments: { q: 'ci' } },
      ],
    });
    const response = await agent().models.generateContent({
      model: MODEL,
      contents: script,
      config: { tools: TOOLS },
    });
    const expected = [
      { name: 'github/create_issue', args: { title: 'flaky ci' } },
      { name: 'jira/create_ticket', args: { q: 'ci' } },
    ];
    expect(response.functionCalls).toEqual(expected);
    const chunks = await streamed(script);
    expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual(expected);
    const recorded = await receipt(receiptIdOf(chunks[0] as GenerateContentResponse));
    expect(recorded.stream).toBe(true);
    expect(
      recorded.response?.tool_calls.map((c) => [c.name, c.provider_name, c.policy_state]),
    ).toEqual([
      ['github/create_issue', 'gh_issue', 'allowed'],
      ['jira/create_ticket', 'jira_create_ticket', 'allowed'],
    ]);
  });

  it('never hands the agent a call to a hidden tool, JSON or streamed', async () => {
    const script = say({ text: 'Opening it.', call: 'create_pull_request', arguments: { q: 'x' } });
    const response = await agent().models.generateContent({
      model: MODEL,
      contents: script,
      config: { tools: TOOLS },
    });
    expect(response.functionCalls).toBeUndefined();
    expect(response.text).toBe('Opening it.');
    const chunks = await streamed(script);
    expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([]);
    expect(JSON.stringify(chunks)).not.toContain('create_pull_request');
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('Opening it.');
    for (const id of [receiptIdOf(response), receiptIdOf(chunks[0] as GenerateContentResponse)]) {
      const recorded = await receipt(id);
      expect(recorded.response?.tool_calls).toEqual([
        expect.objectContaining({
          name: 'create_pull_request',
          policy_state: 'blocked',
          reason: 'hidden',
        }),
      ]);
    }
  });

  it('runs the function-call loop: history renamed for the provider, results receipted', async () => {
    const history: Content[] = [
      { role: 'user', parts: [{ text: say({ call: 'gh_issue', arguments: { title: 'flaky' } }) }] },
    ];
    const turn1 = await agent().models.generateContent({
      model: MODEL,
      contents: history,
      config: { tools: TOOLS },
    });
    const call = turn1.functionCalls?.[0];
    expect(call?.name).toBe('github/create_issue');
    const result = { output: { issue: 42 } };
    history.push(turn1.candidates?.[0]?.content as Content, {
      role: 'user',
      parts: [{ functionResponse: { name: call?.name as string, response: result } }],
    });
    const turn2 = await agent().models.generateContent({
      model: MODEL,
      contents: history,
      config: { tools: TOOLS },
    });
    // After a function response the mock has no user text: its default answer ends the loop.
    expect(turn2.text).toMatch(/^mock: 4 tools/);
    const sent = lastProviderRequest().body.contents as Content[];
    expect(sent[1]?.parts?.[0]?.functionCall?.name).toBe('gh_issue');
    expect(sent[2]?.parts?.[0]?.functionResponse?.name).toBe('gh_issue');
    const [released, answered] = [
      await receipt(receiptIdOf(turn1)),
      await receipt(receiptIdOf(turn2)),
    ];
    expect(answered.tool_results).toEqual([
      {
        tool_call_id: '',
        action_id: released.response?.tool_calls[0]?.action_id,
        result_hash: hashLenient(result),
        is_error: false,
        elapsed_ms: expect.any(Number),
      },
    ]);
  });

  it('refuses a malformed declaration with a 400 naming the field; nothing is forwarded', async () => {
    const depth = gw.spool.stats().depth;
    const error = await agent()
      .models.generateContent({
        model: MODEL,
        contents: 'hi',
        config: {
          tools: [
            {
              functionDeclarations: [{ name: 'ok' }, { name: 'fine' }, { description: 'nameless' }],
            },
          ],
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    const body = JSON.parse((error as ApiError).message) as { error: Record<string, unknown> };
    expect(body.error).toEqual({
      code: 400,
      message: expect.stringContaining('tools[0].functionDeclarations[2].name: is required'),
      status: 'INVALID_ARGUMENT',
    });
    expect(gw.mock.requests.last()).toEqual([]);
    expect(gw.spool.stats().depth).toBe(depth);
  });
});

describe('Gemini paths', () => {
  const post = (path: string, body: unknown = { contents: [{ parts: [{ text: 'hi' }] }] }) =>
    fetch(gw.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test-FAKE' },
      body: JSON.stringify(body),
    });

  it.each([
    ['/v1beta/models/..%2F..%2Fv1beta%2Ffiles:generateContent', 400, 'model'],
    ['/v1beta/models/a%2Fb:generateContent', 400, 'model'],
    ['/v1beta/models/.hidden:generateContent', 400, 'model'],
    ['/v1beta/models/gemini-2.5-flash:countTokens', 404, 'generateContent'],
    ['/v1beta/models/gemini-2.5-flash:generateContent/x', 404, 'generateContent'],
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 400, 'alt=sse'],
    ['/v1beta/models/gemini-2.5-flash:generateContent?alt=sse', 400, 'alt'],
    ['/v1beta/models/gemini-2.5-flash:generateContent?key=a&key=b', 400, 'key'],
  ])('refuses %s with %i in Gemini’s format, forwarding nothing', async (path, status, says) => {
    const depth = gw.spool.stats().depth;
    const response = await post(path);
    expect(response.status).toBe(status);
    const body = (await response.json()) as {
      error: { code: number; message: string; status: string };
    };
    expect(body.error.code).toBe(status);
    expect(body.error.message).toContain(says);
    expect(typeof body.error.status).toBe('string');
    expect(gw.mock.requests.last()).toEqual([]);
    expect(gw.spool.stats().depth).toBe(depth);
  });

  it('serves /v1 as well as /v1beta, and calls the provider on the same version', async () => {
    const response = await post(`/v1/models/${MODEL}:generateContent?alt=json`);
    expect(response.status).toBe(200);
    expect(lastProviderRequest().path).toBe(`/v1/models/${MODEL}:generateContent`);
  });
});
