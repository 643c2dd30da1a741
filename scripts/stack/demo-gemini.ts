import { GoogleGenAI } from '@google/genai';
import type { DemoStep } from './demo-agent.ts';

/** The demo agent's tools as Gemini function declarations. */
export interface DemoTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * The demo agent's Gemini step: the official `@google/genai` client (only `httpOptions.baseUrl`
 * changed, its Toolgate token as the API key) streams a call to the renamed issue tool, which
 * comes back under the agent's own name.
 */
export async function geminiDemoStep(options: {
  gatewayUrl: string;
  mockUrl: string;
  agentToken: string;
  headers: Record<string, string>;
  tools: DemoTool[];
}): Promise<DemoStep> {
  const ai = new GoogleGenAI({
    apiKey: options.agentToken,
    httpOptions: { baseUrl: options.gatewayUrl, headers: options.headers },
  });
  const script = { call: 'gh_create_issue', arguments: { title: 'flaky test' } };
  const stream = await ai.models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: `mock: ${JSON.stringify(script)}`,
    config: {
      tools: [
        {
          functionDeclarations: options.tools.map((t) => ({
            name: t.name,
            description: t.description,
            parametersJsonSchema: t.parameters,
          })),
        },
      ],
    },
  });
  const agentGot: string[] = [];
  let receiptId: string | undefined;
  for await (const chunk of stream) {
    receiptId ??= chunk.sdkHttpResponse?.headers?.['x-toolgate-receipt-id'];
    for (const call of chunk.functionCalls ?? []) agentGot.push(call.name ?? '?');
  }
  return {
    title: 'open an issue, streamed (renamed back), Gemini SDK',
    sdk: 'gemini',
    receiptId,
    offered: options.tools.map((t) => t.name),
    providerSaw: await geminiProviderSaw(options.mockUrl),
    agentGot,
  };
}

/** The function declarations of the last request the demo upstream received. */
async function geminiProviderSaw(mockUrl: string): Promise<string[]> {
  const response = await fetch(`${mockUrl}/__mock/requests?limit=1`);
  const { requests } = (await response.json()) as {
    requests: Array<{
      body: { tools?: Array<{ functionDeclarations?: Array<{ name: string }> }> };
    }>;
  };
  return (requests[0]?.body.tools ?? []).flatMap((t) =>
    (t.functionDeclarations ?? []).map((d) => d.name),
  );
}
