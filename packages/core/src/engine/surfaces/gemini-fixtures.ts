import type { JsonObject, JsonValue } from '../../json/json-value.ts';
import type { CompiledBundle } from '../compile-bundle.ts';
import { type MediationInput, type MediationResult, mediateRequest } from '../mediate-request.ts';

/** Test helpers for the Gemini surface's tests (not exported from the package). */

export const GEMINI_MODEL = 'gemini-2.5-flash';

export function geminiDeclaration(name: string, extra: JsonObject = {}): JsonObject {
  return {
    name,
    description: `${name} tool`,
    parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } } },
    ...extra,
  };
}

/** A `generateContent` body: the declarations in one `functionDeclarations` entry, then `more`. */
export function geminiRequest(
  declarations: JsonObject[],
  more: JsonObject[] = [],
  extra: JsonObject = {},
): JsonObject {
  const tools = [...(declarations.length ? [{ functionDeclarations: declarations }] : []), ...more];
  return { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools, ...extra };
}

/** A model turn holding these calls (`[name, args, id?]`). */
export function modelTurn(calls: Array<[string, JsonValue, string?]>): JsonObject {
  return {
    role: 'model',
    parts: calls.map(([name, args, id]) => ({
      functionCall: { name, args, ...(id !== undefined ? { id } : {}) },
    })),
  };
}

/** A user turn answering calls (`[name, response, id?]`). */
export function responseTurn(responses: Array<[string, JsonValue, string?]>): JsonObject {
  return {
    role: 'user',
    parts: responses.map(([name, response, id]) => ({
      functionResponse: { name, response, ...(id !== undefined ? { id } : {}) },
    })),
  };
}

export function mediateGemini(
  bundle: CompiledBundle,
  body: JsonObject,
  extra: Partial<MediationInput> = {},
  stream = false,
): MediationResult {
  return mediateRequest(bundle, {
    surface: 'gemini',
    body,
    target: { model: GEMINI_MODEL, stream },
    ...extra,
  });
}

/** The function declaration names of a Gemini provider request, in order. */
export function declarationNames(body: JsonObject): string[] {
  const tools = (body.tools as JsonObject[] | undefined) ?? [];
  return tools.flatMap((tool) =>
    ((tool.functionDeclarations as JsonObject[] | undefined) ?? []).map((d) => d.name as string),
  );
}

/** The built-in tool fields of a Gemini provider request (`googleSearch`, …), in order. */
export function builtInNames(body: JsonObject): string[] {
  const tools = (body.tools as JsonObject[] | undefined) ?? [];
  return tools.flatMap((tool) => Object.keys(tool).filter((k) => k !== 'functionDeclarations'));
}
