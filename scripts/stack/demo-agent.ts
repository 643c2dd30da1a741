import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { geminiDemoStep } from './demo-gemini.ts';

/** The tools the demo agent offers (the demo seed's policies hide, augment, replace, rename). */
const OPENAI_TOOLS = [
  fn('create_pull_request', 'Open a pull request.', { title: { type: 'string' } }),
  fn('search_code', 'Search code in a repository.', { query: { type: 'string' } }),
  fn('read_file', 'Read a file from a repository.', { path: { type: 'string' } }),
  fn('web_search', 'Search the web.', { q: { type: 'string' } }),
  fn('github/create_issue', 'Open an issue on GitHub.', { title: { type: 'string' } }),
];

function fn(name: string, description: string, properties: Record<string, unknown>) {
  return {
    type: 'function' as const,
    function: { name, description, parameters: { type: 'object', properties } },
  };
}

/** What one demo step did, as the agent and the provider saw it. */
export interface DemoStep {
  title: string;
  sdk: 'openai' | 'anthropic' | 'gemini';
  receiptId: string | undefined;
  offered: string[];
  providerSaw: string[];
  /** Tool calls the agent received (after enforcement). */
  agentGot: string[];
}

interface MockRequest {
  seq: number;
  body: { tools?: Array<{ name?: string; function?: { name?: string } }> };
}

/**
 * A scripted agent through the gateway with the official SDKs (only `baseURL` changed; its
 * Toolgate token is its API key): a normal call, a call to a hidden tool that the gateway blocks,
 * a stream, the OpenAI Responses API, the Anthropic Messages API and a Gemini stream. The demo
 * upstream is scripted through the last user message (`mock: {…}`), so every run is the same.
 */
export async function runDemoAgent(options: {
  gatewayUrl: string;
  mockUrl: string;
  agentToken: string;
  session?: string;
}): Promise<DemoStep[]> {
  const headers = { 'x-session-id': options.session ?? `demo-${Date.now().toString(36)}` };
  const openai = new OpenAI({
    baseURL: `${options.gatewayUrl}/v1`,
    apiKey: options.agentToken,
    defaultHeaders: headers,
    maxRetries: 0,
  });
  const anthropic = new Anthropic({
    baseURL: options.gatewayUrl,
    apiKey: options.agentToken,
    defaultHeaders: headers,
    maxRetries: 0,
  });
  const offered = OPENAI_TOOLS.map((t) => t.function.name);
  const steps: DemoStep[] = [];
  const providerSaw = async () => {
    const response = await fetch(`${options.mockUrl}/__mock/requests?limit=1`);
    const { requests } = (await response.json()) as { requests: MockRequest[] };
    return (requests[0]?.body.tools ?? []).map((t) => t.function?.name ?? t.name ?? '?');
  };
  const chat = async (title: string, script: object) => {
    const { data, response } = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `mock: ${JSON.stringify(script)}` }],
        tools: OPENAI_TOOLS,
      })
      .withResponse();
    steps.push({
      title,
      sdk: 'openai',
      receiptId: response.headers.get('x-toolgate-receipt-id') ?? undefined,
      offered,
      providerSaw: await providerSaw(),
      agentGot: (data.choices[0]?.message.tool_calls ?? []).map((c) =>
        c.type === 'function' ? c.function.name : c.type,
      ),
    });
  };

  await chat('search code (augmented tool)', {
    call: 'search_code',
    arguments: { query: 'retry', org: 'acme' },
  });
  await chat('call the hidden create_pull_request (blocked)', {
    call: 'create_pull_request',
    arguments: { title: 'ship it' },
  });
  await chat('open an issue (renamed tool, renamed back)', {
    call: 'gh_create_issue',
    arguments: { title: 'flaky test' },
  });

  const stream = await openai.chat.completions
    .create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [
        {
          role: 'user',
          content: `mock: ${JSON.stringify({ call: 'read_file', arguments: { path: 'README.md' } })}`,
        },
      ],
      tools: OPENAI_TOOLS,
    })
    .withResponse();
  const streamed = new Set<string>();
  for await (const chunk of stream.data) {
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
      if (call.function?.name) streamed.add(call.function.name);
    }
  }
  steps.push({
    title: 'read a file, streamed',
    sdk: 'openai',
    receiptId: stream.response.headers.get('x-toolgate-receipt-id') ?? undefined,
    offered,
    providerSaw: await providerSaw(),
    agentGot: [...streamed],
  });

  // The same tools on the Responses API: flat function tools.
  const responsesTools = OPENAI_TOOLS.map((t) => ({
    type: 'function' as const,
    ...t.function,
    strict: false,
  }));
  const response = await openai.responses
    .create({
      model: 'gpt-4.1-mini',
      input: `mock: ${JSON.stringify({ call: 'gh_create_issue', arguments: { title: 'flaky test' } })}`,
      tools: responsesTools,
    })
    .withResponse();
  steps.push({
    title: 'open an issue on the Responses API (renamed back)',
    sdk: 'openai',
    receiptId: response.response.headers.get('x-toolgate-receipt-id') ?? undefined,
    offered,
    providerSaw: await providerSaw(),
    agentGot: response.data.output.flatMap((item) =>
      item.type === 'function_call' ? [item.name] : [],
    ),
  });

  const anthropicTools = OPENAI_TOOLS.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: t.function.parameters as Anthropic.Tool.InputSchema,
  }));
  const message = await anthropic.messages
    .create({
      model: 'claude-haiku-4-5',
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: `mock: ${JSON.stringify({ call: 'approved_web_search', arguments: { query: 'toolgate' } })}`,
        },
      ],
      tools: anthropicTools,
    })
    .withResponse();
  steps.push({
    title: 'web search (replaced by the approved backend), Anthropic SDK',
    sdk: 'anthropic',
    receiptId: message.response.headers.get('x-toolgate-receipt-id') ?? undefined,
    offered,
    providerSaw: await providerSaw(),
    agentGot: message.data.content.flatMap((block) =>
      block.type === 'tool_use' ? [block.name] : [],
    ),
  });
  steps.push(
    await geminiDemoStep({
      ...options,
      headers,
      tools: OPENAI_TOOLS.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        parameters: t.function.parameters,
      })),
    }),
  );
  return steps;
}
