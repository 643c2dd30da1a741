import type { GenerateContentResponse, Tool } from '@google/genai';
import type { Receipt } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiAgent, geminiTools, receiptIdOf, say } from '../testing/gemini-agent.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Gemini's built-in tools through the gateway: Google Search, code execution and URL context
 * offered (their evidence reaches the agent and the receipt maps it to its capability contract)
 * and hidden (the provider never sees the tool; evidence a provider sends anyway is stripped
 * before the agent sees it, and the receipt says it was blocked), JSON and streamed. The policy
 * hides them for one model only, so one gateway shows both.
 */

const OPEN = 'gemini-2.5-flash';
const LOCKED = 'gemini-2.5-flash-locked';
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'no-builtins-when-locked',
      spec: {
        rules: [
          {
            id: 'locked',
            action: 'hide',
            match: { name: '/^(googleSearch|codeExecution|urlContext)$/', model: LOCKED },
          },
        ],
      },
    },
  ]);
});
afterAll(() => gw.close());

const BUILT_INS: Tool[] = [{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }];

async function ask(model: string, script: object, stream: boolean) {
  const request = {
    model,
    contents: say(script),
    config: { tools: geminiTools(['search_code'], BUILT_INS) },
  };
  if (!stream) {
    const response = await geminiAgent(gw.url).models.generateContent(request);
    return { responses: [response], id: receiptIdOf(response) };
  }
  const responses: GenerateContentResponse[] = [];
  for await (const chunk of await geminiAgent(gw.url).models.generateContentStream(request)) {
    responses.push(chunk);
  }
  return { responses, id: receiptIdOf(responses[0] as GenerateContentResponse) };
}

async function receipt(id: string | undefined): Promise<Receipt> {
  const found = (await servedReceipts(gw.spool)).find((r) => r.id === id);
  if (!found) throw new Error(`no receipt ${id}`);
  return found;
}

const lastProviderTools = () =>
  ((gw.mock.requests.last(1)[0]?.body as { tools?: Tool[] } | undefined)?.tools ?? []).flatMap(
    (t) => Object.keys(t),
  );

describe.each([false, true])('Gemini built-in tools (stream: %s)', (stream) => {
  it('Google Search: grounding reaches the agent and the receipt, as web_search', async () => {
    const { responses, id } = await ask(OPEN, { hosted: 'web_search' }, stream);
    expect(lastProviderTools()).toEqual([
      'functionDeclarations',
      'googleSearch',
      'codeExecution',
      'urlContext',
    ]);
    const grounding = responses.flatMap((r) => r.candidates?.[0]?.groundingMetadata ?? []);
    expect(grounding[0]?.webSearchQueries).toEqual([say({ hosted: 'web_search' })]);
    const event = (await receipt(id)).response?.hosted_tool_events[0];
    expect(event).toMatchObject({
      capability: 'wardwright.web_search.v1',
      provider_type: 'groundingMetadata:googleSearch',
      fidelity: 'provider_attested',
      policy_state: 'allowed',
      sources: ['https://example.com/mock-result-1', 'https://example.com/mock-result-2'],
    });
    expect(event?.input_hash).toMatch(/^sha256:/);
  });

  it('Google Search hidden: not offered, and grounding sent anyway is stripped', async () => {
    const { responses, id } = await ask(LOCKED, { hosted: 'web_search' }, stream);
    expect(lastProviderTools()).toEqual(['functionDeclarations']);
    expect(responses.some((r) => r.candidates?.[0]?.groundingMetadata !== undefined)).toBe(false);
    expect(responses.map((r) => r.text ?? '').join('')).toContain('the answer is 42');
    const recorded = await receipt(id);
    expect(recorded.tools.find((t) => t.name === 'googleSearch')?.policy_state).toBe('hidden');
    expect(recorded.response?.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.web_search.v1',
      policy_state: 'blocked',
    });
  });

  it('code execution: code and result reach the agent; hidden, both are stripped', async () => {
    const open = await ask(OPEN, { hosted: 'code_execution' }, stream);
    const parts = open.responses.flatMap((r) => r.candidates?.[0]?.content?.parts ?? []);
    expect(parts.find((p) => p.executableCode)?.executableCode?.code).toBe('print(6 * 7)');
    expect(parts.find((p) => p.codeExecutionResult)?.codeExecutionResult?.output).toBe('42\n');
    expect(
      (await receipt(open.id)).response?.hosted_tool_events.map((e) => [
        e.capability,
        e.provider_type,
        e.fidelity,
        e.policy_state,
      ]),
    ).toEqual([
      ['wardwright.code_exec.v1', 'executableCode:codeExecution', 'normalized', 'allowed'],
      ['wardwright.code_exec.v1', 'codeExecutionResult:codeExecution', 'normalized', 'allowed'],
    ]);
    const locked = await ask(LOCKED, { hosted: 'code_execution' }, stream);
    const lockedParts = locked.responses.flatMap((r) => r.candidates?.[0]?.content?.parts ?? []);
    expect(lockedParts.some((p) => p.executableCode || p.codeExecutionResult)).toBe(false);
    expect(locked.responses.map((r) => r.text ?? '').join('')).toBe('The code printed 42.');
    expect(
      (await receipt(locked.id)).response?.hosted_tool_events.map((e) => e.policy_state),
    ).toEqual(['blocked', 'blocked']);
  });

  it('URL context: the retrieved URLs are sources; hidden, the metadata is stripped', async () => {
    const open = await ask(OPEN, { hosted: 'url_context' }, stream);
    const metadata = open.responses.flatMap((r) => r.candidates?.[0]?.urlContextMetadata ?? []);
    expect(metadata[0]?.urlMetadata?.[0]?.retrievedUrl).toBe('https://example.com/mock-page');
    expect((await receipt(open.id)).response?.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.url_fetch.v1',
      provider_type: 'urlContextMetadata:urlContext',
      sources: ['https://example.com/mock-page'],
      policy_state: 'allowed',
    });
    const locked = await ask(LOCKED, { hosted: 'url_context' }, stream);
    expect(locked.responses.some((r) => r.candidates?.[0]?.urlContextMetadata)).toBe(false);
    expect((await receipt(locked.id)).response?.hosted_tool_events[0]?.policy_state).toBe(
      'blocked',
    );
  });
});
