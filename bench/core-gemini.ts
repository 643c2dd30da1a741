import { createStreamMediator, mediateRequest, RequestParser } from '@toolgate/core';
import { fiftyToolRequest, tenRuleBundle } from './core-mediation.ts';
import { type BenchResult, compare } from './measure.ts';

const TARGET_RATIO = 1.0;
const TARGET = { model: 'gemini-2.5-flash', stream: true };

/** `fiftyToolRequest`'s 50 tools as a Gemini request: one `functionDeclarations` entry. */
export function fiftyToolGeminiRequest(): Record<string, unknown> {
  const openai = fiftyToolRequest();
  const tools = openai.tools as Array<{ function: Record<string, unknown> }>;
  return {
    systemInstruction: {
      parts: [{ text: 'You are a careful coding agent on the acme monorepo.' }],
    },
    contents: [
      { role: 'user', parts: [{ text: 'Find where retries are configured and summarise them.' }] },
    ],
    tools: [
      {
        functionDeclarations: tools.map(({ function: fn }) => ({
          name: fn.name,
          description: fn.description,
          parametersJsonSchema: fn.parameters,
        })),
      },
      { googleSearch: {} },
    ],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  };
}

/** A streamed answer: 200 word chunks, then a call and the last chunk, as Gemini sends them. */
function geminiStream(): string {
  const chunk = (parts: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
      usageMetadata: { promptTokenCount: 900, candidatesTokenCount: 12, totalTokenCount: 912 },
      modelVersion: 'gemini-2.5-flash',
    })}\n\n`;
  let text = '';
  for (let i = 0; i < 200; i++) text += chunk([{ text: `word${i} ` }]);
  text += chunk([{ functionCall: { name: 'renamed_6', args: { repo: 'acme/app' } } }]);
  return text + chunk([{ text: '' }], { finishReason: 'STOP' });
}

/**
 * The Gemini surface in the engine (`pnpm bench core-gemini`): mediating a 50-tool Gemini request
 * with the ten rules against `JSON.parse` + `JSON.stringify` of the same body (as
 * `core-mediation` does for OpenAI), and mediating a 200-chunk SSE answer against the naive
 * floor a chunk-by-chunk proxy would pay (parse and re-serialize every chunk).
 */
export function runCoreGeminiBench(): BenchResult {
  const bundle = tenRuleBundle();
  const text = JSON.stringify(fiftyToolGeminiRequest());
  const parser = new RequestParser();
  const parsed = parser.parse(text);
  const mediate = () => mediateRequest(bundle, { surface: 'gemini', body: parsed, target: TARGET });
  const request = compare(() => JSON.stringify(JSON.parse(text)), mediate);

  const stream = geminiStream();
  const events = stream.split(/(?<=\n\n)/);
  const context = mediate().response;
  const floor = () => {
    let out = '';
    for (const event of events) out += `data: ${JSON.stringify(JSON.parse(event.slice(6)))}\n\n`;
    return out;
  };
  const mediated = () => {
    const mediator = createStreamMediator(context);
    let out = '';
    for (const event of events) out += mediator.push(event);
    return out + mediator.end();
  };
  if (!mediated().includes('"name":"tool_6"')) throw new Error('the call was not renamed back');
  const streamed = compare(floor, mediated, { rounds: 11, perBatch: 20 });

  const passed = request.ratio <= TARGET_RATIO && streamed.ratio <= TARGET_RATIO;
  const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;
  const verdict = (ratio: number) =>
    `${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO.toFixed(1)}×) ${ratio <= TARGET_RATIO ? 'PASS' : 'FAIL'}`;
  return {
    name: 'core: the Gemini surface (50-tool request with 10 rules, 200-chunk stream)',
    passed,
    lines: [
      `request body:                   ${(text.length / 1024).toFixed(1)} KiB, 50 declarations + googleSearch`,
      `floor JSON.parse+stringify:     ${us(request.baselineNs)} (median)`,
      `mediation incl. hashing, warm:  ${us(request.candidateNs)} (median) → ${verdict(request.ratio)}`,
      `stream: parse+serialize each chunk ${us(streamed.baselineNs)}, mediator ${us(streamed.candidateNs)} → ${verdict(streamed.ratio)}`,
    ],
  };
}
