import type { JsonObject } from '../json/json-value.ts';
import type { MediationPolicySpecInput } from '../resources/mediation-policy.ts';
import { type BundlePolicy, type CompiledBundle, compileBundle } from './compile-bundle.ts';

/** Test helpers shared by the engine's tests (not exported from the package). */

export function openAITool(name: string, extra: JsonObject = {}): JsonObject {
  return {
    type: 'function',
    function: {
      name,
      description: `${name} tool`,
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      ...extra,
    },
  };
}

export function anthropicTool(name: string, extra: JsonObject = {}): JsonObject {
  return {
    name,
    description: `${name} tool`,
    input_schema: { type: 'object', properties: { q: { type: 'string' } } },
    ...extra,
  };
}

export function openAIRequest(tools: JsonObject[], extra: JsonObject = {}): JsonObject {
  return { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], tools, ...extra };
}

export function anthropicRequest(tools: JsonObject[], extra: JsonObject = {}): JsonObject {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'hi' }],
    tools,
    ...extra,
  };
}

export function bundleOf(
  ...policies: Array<MediationPolicySpecInput | (BundlePolicy & { spec: MediationPolicySpecInput })>
): CompiledBundle {
  return compileBundle({
    policies: policies.map((p, i) =>
      'spec' in p && 'name' in p ? p : { name: `policy-${i}`, generation: 1, spec: p },
    ),
  });
}

/** Names of the function tools in an OpenAI request body. */
export function openAIToolNames(body: JsonObject): string[] {
  return ((body.tools as JsonObject[] | undefined) ?? []).map(
    (t) => (t.function as JsonObject).name as string,
  );
}
