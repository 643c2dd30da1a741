import { median } from '../measure.ts';
import { interleavedLatency, percentile } from './load.ts';
import type { Measured } from './phases.ts';

/**
 * The OpenAI Responses surface in `pnpm bench gateway`: the 50-tool request in Responses form
 * (flat function tools) straight to the mock and through Toolgate, interleaved request by
 * request with the Chat Completions one, so both surfaces' added p50 come from the same rounds.
 * Target: mediating a Responses request adds at most 1.2× what a Chat Completions one adds.
 */

export const TARGET_RESPONSES_VS_CHAT = 1.2;
export const RESPONSES_PATH = '/v1/responses';

/** The benchmark's Chat Completions request as a Responses request: same tools, flat. */
export function responsesRequestOf(chat: Record<string, unknown>): Record<string, unknown> {
  const messages = chat.messages as Array<{ role: string; content: string }>;
  const tools = (chat.tools as Array<{ function: Record<string, unknown> }>).map((tool) => ({
    type: 'function',
    ...tool.function,
    strict: false,
  }));
  return {
    model: chat.model,
    instructions: messages.find((m) => m.role === 'system')?.content,
    input: messages.filter((m) => m.role !== 'system'),
    tools,
    tool_choice: chat.tool_choice,
  };
}

export interface SurfaceLatency {
  /** Medians over rounds of (Toolgate's p50 − direct's p50, same surface, same round). */
  chatAddedP50: number;
  responsesAddedP50: number;
  responsesAddedP99: number;
}

/**
 * `rounds` × `iterations` requests to each of: the mock and Toolgate on Chat Completions, the
 * mock and Toolgate on Responses, interleaved.
 */
export async function measureSurfaces(
  direct: Measured,
  toolgate: Measured,
  bodies: { chat: string; responses: string },
  rounds: number,
  iterations: number,
  progress: (line: string) => void,
): Promise<SurfaceLatency> {
  const responses = { path: RESPONSES_PATH, body: bodies.responses };
  const targets = [
    { ...direct, name: 'direct chat' },
    { ...toolgate, name: 'toolgate chat' },
    { ...direct, ...responses, name: 'direct responses' },
    { ...toolgate, ...responses, name: 'toolgate responses' },
  ];
  const chat: number[] = [];
  const added: number[] = [];
  const addedP99: number[] = [];
  for (let round = 0; round < rounds; round++) {
    progress(`responses vs chat, round ${round + 1}/${rounds}: ${iterations} requests per target`);
    const samples = await interleavedLatency(targets, bodies.chat, iterations);
    const at = (name: string, p: number) => percentile(samples.get(name) ?? [], p);
    chat.push(at('toolgate chat', 0.5) - at('direct chat', 0.5));
    added.push(at('toolgate responses', 0.5) - at('direct responses', 0.5));
    addedP99.push(at('toolgate responses', 0.99) - at('direct responses', 0.99));
  }
  return {
    chatAddedP50: median(chat),
    responsesAddedP50: median(added),
    responsesAddedP99: median(addedP99),
  };
}

/** The report line and its verdict. */
export function responsesReport(
  result: SurfaceLatency | undefined,
  label: (text: string) => string,
  ms: (value: number | undefined) => string,
  verdict: (ok: boolean) => string,
): string[] {
  const target = label(`Responses added p50 ≤ ${TARGET_RESPONSES_VS_CHAT}× Chat's`);
  if (result === undefined) return [`${target}${verdict(false)}: not measured`];
  const ratio = result.responsesAddedP50 / result.chatAddedP50;
  return [
    `${target}${ms(result.responsesAddedP50)} vs ${ms(result.chatAddedP50)} → ${ratio.toFixed(2)}× ${verdict(ratio <= TARGET_RESPONSES_VS_CHAT)}`,
    `${label('')}Responses added p99 ${ms(result.responsesAddedP99)} (same rounds)`,
  ];
}
