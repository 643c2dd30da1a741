import type { Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GEMINI_TEST_MODEL, geminiAgent } from '../testing/gemini-agent.ts';
import {
  COMPACT_POLICY,
  CREATE_ISSUE_DESCRIPTION,
  CREATE_ISSUE_SCHEMA,
  DISCLOSURE_SCRIPT,
  GREEDY_SCRIPT,
  ISSUE_ARGUMENTS,
  LIST_ISSUES_SCHEMA,
  say,
} from '../testing/hosted-fixtures.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * The tool loop on OpenAI Responses and Gemini, through the official `openai` and
 * `@google/genai` SDKs against the real mock provider, JSON and SSE: tool_info's call and result
 * go back as Responses `function_call` + `function_call_output` items and Gemini `functionCall`
 * + `functionResponse` parts; the agent sees only the final turn.
 */

let gw: TestGateway;
let openai: OpenAI;

type Logged = { body: Record<string, unknown> };
const providerRequests = () => gw.mock.requests.last(20) as unknown as Logged[];
const lastReceipt = async () => (await servedReceipts(gw.spool, 10_000)).at(-1) as Receipt;

function expectDisclosedSchema(text: string) {
  expect(JSON.parse(text)).toMatchObject({ name: 'create_issue', parameters: CREATE_ISSUE_SCHEMA });
}

async function expectOneRound() {
  const receipt = await lastReceipt();
  expect(receipt.hosted?.rounds.map((r) => r.calls.map((c) => [c.name, c.outcome]))).toEqual([
    [['tool_info', 'ok']],
  ]);
  expect(receipt.response?.tool_calls.map((c) => c.name)).toEqual(['create_issue']);
}

beforeAll(async () => {
  gw = await startTestGateway();
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(async () => {
  gw.mock.requests.clear();
  await gw.applyPolicies([COMPACT_POLICY()]);
});

describe('OpenAI Responses (official openai SDK)', () => {
  const tools: OpenAI.Responses.FunctionTool[] = [
    {
      type: 'function',
      name: 'create_issue',
      description: CREATE_ISSUE_DESCRIPTION,
      parameters: CREATE_ISSUE_SCHEMA as never,
      strict: false,
    },
    {
      type: 'function',
      name: 'list_issues',
      description: 'List issues',
      parameters: LIST_ISSUES_SCHEMA as never,
      strict: false,
    },
  ];
  const params = (script: object) => ({ model: 'gpt-4.1-mini', input: say(script), tools });

  function expectResponsesRound() {
    const logged = providerRequests();
    expect(logged).toHaveLength(2);
    const input = logged[1]?.body.input as Array<Record<string, unknown>>;
    const call = input.find((i) => i.type === 'function_call');
    const output = input.find((i) => i.type === 'function_call_output');
    expect(call).toMatchObject({ name: 'tool_info' });
    expect(output?.call_id).toBe(call?.call_id);
    expectDisclosedSchema(output?.output as string);
    // The agent's input string became the first input item.
    expect(input[0]).toMatchObject({ role: 'user' });
  }

  it('runs tool_info, and the agent sees only the final turn', async () => {
    const response = await openai.responses.create(params(DISCLOSURE_SCRIPT));
    const calls = response.output.filter((i) => i.type === 'function_call');
    expect(calls.map((c) => c.name)).toEqual(['create_issue']);
    expect(JSON.parse((calls[0] as { arguments: string }).arguments)).toEqual(ISSUE_ARGUMENTS);
    expect(JSON.stringify(response)).not.toContain('tool_info');
    expectResponsesRound();
    await expectOneRound();
  });

  it('streams the final turn, output indices consistent for the SDK', async () => {
    const stream = openai.responses.stream(params(DISCLOSURE_SCRIPT));
    const indices: number[] = [];
    stream.on('response.output_item.added', (event) => indices.push(event.output_index));
    const final = await stream.finalResponse();
    expect(indices.length).toBeGreaterThan(0);
    expect(indices).toEqual(indices.map((_, i) => i));
    const calls = final.output.filter((i) => i.type === 'function_call');
    expect(calls.map((c) => c.name)).toEqual(['create_issue']);
    expectResponsesRound();
    await expectOneRound();
  });

  it('shows the hosted rounds’ text first when the policy says so, JSON and SSE', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ showHostedText: true })]);
    const script = {
      rounds: [
        { ...DISCLOSURE_SCRIPT.rounds[0], text: 'Let me check the schema.' },
        DISCLOSURE_SCRIPT.rounds[1],
      ],
    };
    const json = await openai.responses.create(params(script));
    expect(json.output.map((i) => i.type)).toEqual(['message', 'message', 'function_call']);
    expect(json.output_text).toBe('Let me check the schema.Filing it now.');
    const stream = openai.responses.stream(params(script));
    const indices: number[] = [];
    const sequence: number[] = [];
    stream.on('response.output_item.added', (event) => indices.push(event.output_index));
    stream.on('event', (event) => sequence.push(event.sequence_number));
    const final = await stream.finalResponse();
    expect(indices).toEqual([0, 1, 2]);
    expect(sequence.length).toBeGreaterThan(10);
    expect(sequence).toEqual(sequence.map((_, i) => i));
    expect(final.output.map((i) => i.type)).toEqual(['message', 'message', 'function_call']);
    const first = final.output[0] as { content: Array<{ text: string }> };
    expect(first.content[0]?.text).toBe('Let me check the schema.');
  });

  it('stops at the round budget with a note', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ maxRounds: 1 })]);
    const response = await openai.responses.create(params(GREEDY_SCRIPT));
    expect(response.output.filter((i) => i.type === 'function_call')).toEqual([]);
    expect(response.output_text).toMatch(/hosted-tool budget is exhausted/);
    expect((await lastReceipt()).hosted?.exhausted).toBe('max_rounds');
  });
});

describe('Gemini (official @google/genai SDK)', () => {
  const config = {
    tools: [
      {
        functionDeclarations: [
          {
            name: 'create_issue',
            description: CREATE_ISSUE_DESCRIPTION,
            parametersJsonSchema: CREATE_ISSUE_SCHEMA,
          },
          {
            name: 'list_issues',
            description: 'List issues',
            parametersJsonSchema: LIST_ISSUES_SCHEMA,
          },
        ],
      },
    ],
  };
  const params = (script: object) => ({
    model: GEMINI_TEST_MODEL,
    contents: [{ role: 'user', parts: [{ text: say(script) }] }],
    config,
  });

  function expectGeminiRound() {
    const logged = providerRequests();
    expect(logged).toHaveLength(2);
    const contents = logged[1]?.body.contents as Array<{ role: string; parts: unknown[] }>;
    const [model, user] = contents.slice(-2);
    expect(model?.role).toBe('model');
    expect(model?.parts).toContainEqual(
      expect.objectContaining({
        functionCall: expect.objectContaining({ name: 'tool_info' }),
      }),
    );
    expect(user?.role).toBe('user');
    const part = user?.parts[0] as {
      functionResponse: { name: string; response: { output: string } };
    };
    expect(part.functionResponse.name).toBe('tool_info');
    expectDisclosedSchema(part.functionResponse.response.output);
  }

  it('runs tool_info, and the agent sees only the final turn', async () => {
    const response = await geminiAgent(gw.url).models.generateContent(params(DISCLOSURE_SCRIPT));
    expect(response.functionCalls?.map((c) => [c.name, c.args])).toEqual([
      ['create_issue', ISSUE_ARGUMENTS],
    ]);
    expect(JSON.stringify(response.candidates)).not.toContain('tool_info');
    expectGeminiRound();
    await expectOneRound();
  });

  it('streams the final turn', async () => {
    const stream = await geminiAgent(gw.url).models.generateContentStream(
      params(DISCLOSURE_SCRIPT),
    );
    const calls: Array<[string | undefined, unknown]> = [];
    for await (const chunk of stream) {
      for (const call of chunk.functionCalls ?? []) calls.push([call.name, call.args]);
    }
    expect(calls).toEqual([['create_issue', ISSUE_ARGUMENTS]]);
    expectGeminiRound();
    await expectOneRound();
  });

  it('shows the hosted rounds’ text first when the policy says so, JSON and SSE', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ showHostedText: true })]);
    const script = {
      rounds: [
        { ...DISCLOSURE_SCRIPT.rounds[0], text: 'Let me check the schema.' },
        DISCLOSURE_SCRIPT.rounds[1],
      ],
    };
    const json = await geminiAgent(gw.url).models.generateContent(params(script));
    expect(json.text).toBe('Let me check the schema.Filing it now.');
    expect(json.functionCalls?.map((c) => c.name)).toEqual(['create_issue']);
    const stream = await geminiAgent(gw.url).models.generateContentStream(params(script));
    let text = '';
    const calls: string[] = [];
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      for (const call of chunk.functionCalls ?? []) calls.push(call.name ?? '');
    }
    expect(text).toBe('Let me check the schema.Filing it now.');
    expect(calls).toEqual(['create_issue']);
  });

  it('stops at the call budget with a note', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ maxCalls: 1 })]);
    const response = await geminiAgent(gw.url).models.generateContent(params(GREEDY_SCRIPT));
    expect(response.functionCalls ?? []).toEqual([]);
    expect(response.text).toMatch(/hosted-tool budget is exhausted/);
    expect((await lastReceipt()).hosted?.exhausted).toBe('max_calls');
  });
});
