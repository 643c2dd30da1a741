import {
  HOSTED_BUDGET_DEFAULTS,
  HostedBudget,
  type MediationPolicySpec,
} from '../resources/mediation-policy.ts';
import { parseDuration } from './duration.ts';

/** The gateway's built-in hosted tool: the full declaration of a compacted tool, on demand. */
export const TOOL_INFO = 'tool_info';

/** A bundle's tool-loop budget, in numbers (docs/hosted-tools.md). */
export interface ResolvedHostedBudget {
  maxCalls: number;
  maxRounds: number;
  maxAddedLatencyMs: number;
  showHostedText: boolean;
  visibleToAgent: boolean;
  /** The name `tool_info` is offered under. */
  toolInfoName: string;
}

/**
 * The strictest bound of every execute policy's `hosted` block (absent: the defaults); the
 * display switches and `toolInfoName` from the first policy in merged order that sets them.
 */
export function resolveHostedBudget(
  specs: ReadonlyArray<Pick<MediationPolicySpec, 'mode' | 'hosted'>>,
): ResolvedHostedBudget {
  const defaults = HostedBudget.parse({});
  const blocks = specs.filter((s) => s.mode === 'execute').map((s) => s.hosted ?? defaults);
  const first = blocks.find((b) => b !== defaults) ?? defaults;
  const ms = (text: string) =>
    parseDuration(text) ?? (parseDuration(HOSTED_BUDGET_DEFAULTS.maxAddedLatency) as number);
  const min = (values: number[], fallback: number) =>
    values.length === 0 ? fallback : Math.min(...values);
  return {
    maxCalls: min(
      blocks.map((b) => b.maxCalls),
      defaults.maxCalls,
    ),
    maxRounds: min(
      blocks.map((b) => b.maxRounds),
      defaults.maxRounds,
    ),
    maxAddedLatencyMs: min(
      blocks.map((b) => ms(b.maxAddedLatency)),
      ms(defaults.maxAddedLatency),
    ),
    showHostedText: first.showHostedText,
    visibleToAgent: first.visibleToAgent,
    toolInfoName: blocks.find((b) => b.toolInfoName !== undefined)?.toolInfoName ?? TOOL_INFO,
  };
}
