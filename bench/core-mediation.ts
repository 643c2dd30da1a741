import {
  compileBundle,
  jsonObjectUtf8,
  type MediationPolicySpecInput,
  mediateRequest,
  RequestParser,
} from '@toolgate/core';
import { type BenchResult, compare } from './measure.ts';

const TARGET_RATIO = 1.0;

/** A realistic coding-agent request: 50 function tools with JSON Schemas of varying size. */
export function fiftyToolRequest(): Record<string, unknown> {
  const tools = Array.from({ length: 50 }, (_, i) => ({
    type: 'function',
    function: {
      name: i % 10 === 9 ? `github/tool_${i}` : `tool_${i}`,
      description: `Tool number ${i}: does a specific thing to the repository and reports back.`,
      parameters: {
        type: 'object',
        properties: {
          repo: { type: 'string', description: 'owner/name of the repository' },
          path: { type: 'string', description: 'file path inside the repository' },
          limit: { type: 'integer', minimum: 1, maximum: 100 },
          mode: { type: 'string', enum: ['fast', 'thorough', 'exhaustive'] },
          ...(i % 3 === 0
            ? {
                filters: {
                  type: 'object',
                  properties: {
                    language: { type: 'string' },
                    since: { type: 'string', format: 'date-time' },
                    labels: { type: 'array', items: { type: 'string' } },
                  },
                },
              }
            : {}),
        },
        required: ['repo'],
      },
    },
  }));
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are a careful coding agent working on the acme monorepo.' },
      { role: 'user', content: 'Find where retries are configured and summarise the policy.' },
    ],
    tools,
    tool_choice: 'auto',
  };
}

/** Ten rules of every kind, including globs and a regex (the spec, for a real MediationPolicy). */
export const TEN_RULES: MediationPolicySpecInput['rules'] = [
  { id: 'hide-1', action: 'hide', match: { name: 'tool_1' } },
  { id: 'hide-glob', action: 'hide', match: { name: 'tool_4?' } },
  {
    id: 'augment-2',
    action: 'augment',
    match: { name: 'tool_2' },
    description_append: 'Read only.',
  },
  {
    id: 'augment-re',
    action: 'augment',
    match: { name: '/^tool_3[0-3]$/' },
    parameters: { additionalProperties: false },
  },
  {
    id: 'replace-5',
    action: 'replace',
    match: { name: 'tool_5' },
    tool: { name: 'safe_tool_5', parameters: { type: 'object' } },
  },
  { id: 'rename-6', action: 'rename', match: { name: 'tool_6' }, alias: 'renamed_6' },
  { id: 'hide-none', action: 'hide', match: { name: 'does_not_exist' } },
  {
    id: 'augment-mcp',
    action: 'augment',
    match: { declared_by: 'mcp' },
    description_append: 'Via MCP.',
  },
  { id: 'hide-model', action: 'hide', match: { name: 'tool_7', model: 'gpt-5*' } },
  { id: 'rename-8', action: 'rename', match: { name: 'tool_8' }, alias: 'renamed_8' },
];

/** The ten rules compiled as a one-policy bundle. */
export function tenRuleBundle(memoSize?: number) {
  return compileBundle({
    ...(memoSize === undefined ? {} : { memoSize }),
    policies: [{ name: 'bench', generation: 1, spec: { rules: TEN_RULES } }],
  });
}

export function runCoreMediationBench(): BenchResult {
  const request = fiftyToolRequest();
  const text = JSON.stringify(request);
  const parsed = JSON.parse(text);
  const floor = () => JSON.stringify(JSON.parse(text));
  // Warm: the steady state of a gateway, where agents resend the same tools every turn and the
  // bundle's memo holds their catalog. Cold: the memo disabled, every hash computed afresh.
  const warmBundle = tenRuleBundle();
  const coldBundle = tenRuleBundle(0);
  const warm = compare(floor, () =>
    mediateRequest(warmBundle, { surface: 'openai-chat', body: parsed }),
  );
  const cold = compare(floor, () =>
    mediateRequest(coldBundle, { surface: 'openai-chat', body: parsed }),
  );
  // The gateway's whole request path (parse, mediate, serialize the provider request): plain
  // JSON.parse/JSON.stringify against RequestParser + remembered texts, both with a warm memo.
  const parser = new RequestParser();
  const plainPath = () =>
    Buffer.from(
      JSON.stringify(
        mediateRequest(warmBundle, { surface: 'openai-chat', body: JSON.parse(text) }).body,
      ),
    );
  const sharedPath = () =>
    Buffer.concat(
      jsonObjectUtf8(
        mediateRequest(warmBundle, { surface: 'openai-chat', body: parser.parse(text) }).body,
      ),
    );
  if (!plainPath().equals(sharedPath())) throw new Error('the two request paths disagree');
  const path = compare(plainPath, sharedPath);
  const passed = warm.ratio <= TARGET_RATIO;
  const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;
  return {
    name: 'core: mediate a 50-tool OpenAI request with 10 rules',
    passed,
    lines: [
      `request body:                   ${(text.length / 1024).toFixed(1)} KiB, 50 tools, 10 rules`,
      `floor JSON.parse+stringify:     ${us(warm.baselineNs)} (median)`,
      `mediation incl. hashing, warm:  ${us(warm.candidateNs)} (median) → ${warm.ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO.toFixed(1)}×) ${passed ? 'PASS' : 'FAIL'}`,
      `mediation incl. hashing, cold:  ${us(cold.candidateNs)} (median) → ${cold.ratio.toFixed(2)}× (memo disabled; floor ${us(cold.baselineNs)})`,
      `gateway request path (parse, mediate, serialize): JSON.parse/stringify ${us(path.baselineNs)}, RequestParser + remembered texts ${us(path.candidateNs)} → ${path.ratio.toFixed(2)}× (same output)`,
    ],
  };
}
