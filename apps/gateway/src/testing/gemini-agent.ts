import { type FunctionDeclaration, GoogleGenAI, type Tool } from '@google/genai';

/** An agent on the official `@google/genai` SDK, pointed at a gateway (or any base URL). */
export function geminiAgent(
  baseUrl: string,
  options: { apiKey?: string; headers?: Record<string, string> } = {},
): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: options.apiKey ?? 'AIza-test-FAKE-agent-key',
    httpOptions: { baseUrl, ...(options.headers ? { headers: options.headers } : {}) },
  });
}

export const GEMINI_TEST_MODEL = 'gemini-2.5-flash';

/** A function declaration with one string parameter `q`, in JSON Schema. */
export function declaration(name: string, description = `${name} tool`): FunctionDeclaration {
  return {
    name,
    description,
    parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } } },
  };
}

/** A `tools` list: the functions in one entry, then the built-ins (`{googleSearch: {}}`). */
export function geminiTools(names: string[], builtIns: Tool[] = []): Tool[] {
  return [{ functionDeclarations: names.map((name) => declaration(name)) }, ...builtIns];
}

/** The mock provider reads its script from the last user message (`mock: {json}`). */
export const say = (script: object) => `mock: ${JSON.stringify(script)}`;

/** The receipt id the gateway answered with (a response's or a stream chunk's headers). */
export function receiptIdOf(response: { sdkHttpResponse?: { headers?: Record<string, string> } }) {
  return response.sdkHttpResponse?.headers?.['x-toolgate-receipt-id'];
}
