import type { JsonObject, JsonValue } from '../../json/json-value.ts';
import type { MediationPolicySpecInput } from '../../resources/mediation-policy.ts';
import { type MediationInput, mediateRequest } from '../mediate-request.ts';
import { bundleOf } from '../test-fixtures.ts';

/** Test helpers shared by the OpenAI Responses adapter's tests (not exported from the package). */

/** A Responses function tool, flat. */
export const fn = (name: string, extra: JsonObject = {}): JsonObject => ({
  type: 'function',
  name,
  description: `${name} tool`,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  strict: true,
  ...extra,
});

export const request = (tools: JsonValue[], extra: JsonObject = {}): JsonObject => ({
  model: 'gpt-4.1',
  instructions: 'Be brief.',
  input: [{ role: 'user', content: 'hi' }],
  tools,
  ...extra,
});

export function mediate(
  spec: MediationPolicySpecInput,
  body: JsonObject,
  extra: Partial<MediationInput> = {},
) {
  return mediateRequest(bundleOf(spec), { surface: 'openai-responses', body, ...extra });
}

export const toolNames = (body: JsonObject) =>
  ((body.tools as JsonObject[] | undefined) ?? []).map((t) => t.name ?? t.type);
