import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockProvider, type MockProvider } from './server.ts';

/**
 * The mock's OpenAI Responses API (`POST /v1/responses`), read by the official `openai` SDK with
 * only baseURL changed: `responses.create`, `responses.stream` (whose accumulator checks every
 * event's `output_index` and type), hosted tools, typed agent calls, errors and cuts.
 */
let mock: MockProvider;
let openai: OpenAI;

const script = (value: object) => ({ headers: { 'x-mock-script': JSON.stringify(value) } });

const tools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
  { type: 'web_search' },
  { type: 'mcp', server_label: 'github', server_url: 'https://mcp.example.com/github' },
];

beforeAll(async () => {
  mock = await createMockProvider();
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${mock.url}/v1`, maxRetries: 0 });
});
afterAll(() => mock.close());

describe('mock /v1/responses with the openai SDK', () => {
  it('answers with what the provider saw, and output_text', async () => {
    const response = await openai.responses.create({ model: 'gpt-mock', input: 'hi', tools });
    expect(response.output_text).toBe('mock: 3 tools: get_weather, web_search, github');
    expect(response.status).toBe('completed');
    expect(response._request_id).toMatch(/^req_/);
  });

  it('calls the first function tool, then ends the loop after its output', async () => {
    const first = await openai.responses.create({
      model: 'gpt-mock',
      input: 'call the first tool',
      tools,
    });
    const [call] = first.output;
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
      arguments: '{"city":"city"}',
      call_id: expect.stringMatching(/^call_/),
    });
    const next = await openai.responses.create({
      model: 'gpt-mock',
      tools,
      input: [
        { role: 'user', content: 'call the first tool' },
        call as OpenAI.Responses.ResponseFunctionToolCall,
        {
          type: 'function_call_output',
          call_id: (call as OpenAI.Responses.ResponseFunctionToolCall).call_id,
          output: 'sunny',
        },
      ],
    });
    expect(next.output.map((i) => i.type)).toEqual(['message']);
  });

  it('streams the real event sequence, which the SDK accumulates', async () => {
    const stream = openai.responses.stream(
      { model: 'gpt-mock', input: 'go', tools },
      script({
        text: 'Let me look.',
        calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      }),
    );
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(final.output_text).toBe('Let me look.');
    expect(final.output.map((i) => i.type)).toEqual(['message', 'function_call']);
  });

  it.each([
    ['web_search', ['web_search_call', 'message']],
    ['file_search', ['file_search_call', 'message']],
    ['code_interpreter', ['code_interpreter_call', 'message']],
    ['image_generation', ['image_generation_call', 'message']],
    ['mcp', ['mcp_list_tools', 'mcp_call', 'message']],
  ])('runs hosted %s, streamed and not', async (hosted, types) => {
    const params = { model: 'gpt-mock', input: 'capital of France', tools };
    const body = await openai.responses.create(params, script({ hosted }));
    expect(body.output.map((i) => i.type)).toEqual(types);
    const streamed = await openai.responses.stream(params, script({ hosted })).finalResponse();
    // The stream helper adds `parsed` (structured output) to every text part.
    const unparsed = JSON.stringify(streamed.output, (key, value) =>
      key === 'parsed' ? undefined : value,
    );
    expect(JSON.parse(unparsed)).toEqual(body.output);
  });

  it('cites the web search result and asks approval for an MCP call when told to', async () => {
    const params = { model: 'gpt-mock', input: 'capital of France', tools };
    const searched = await openai.responses.create(params, script({ hosted: 'web_search' }));
    const text = searched.output[1] as OpenAI.Responses.ResponseOutputMessage;
    expect(text.content[0]).toMatchObject({
      annotations: [{ type: 'url_citation', url: 'https://example.com/mock-result-1' }],
    });
    const approval = await openai.responses.create(
      params,
      script({ hosted: 'mcp', mcp: { tool: 'delete_repo', approval: true } }),
    );
    expect(approval.output[1]).toMatchObject({
      type: 'mcp_approval_request',
      server_label: 'github',
      name: 'delete_repo',
    });
  });

  it('answers a call to a typed agent tool with its own item', async () => {
    const computer: OpenAI.Responses.Tool = {
      type: 'computer_use_preview',
      display_width: 1024,
      display_height: 768,
      environment: 'browser',
    };
    const response = await openai.responses.create(
      { model: 'gpt-mock', input: 'go', tools: [computer, { type: 'local_shell' }] },
      script({ calls: [{ name: 'computer' }, { name: 'local_shell' }] }),
    );
    expect(response.output.map((i) => i.type)).toEqual(['computer_call', 'local_shell_call']);
  });

  it('sends a typed item for an undeclared tool, and an MCP server of its own, when told to', async () => {
    const params = { model: 'gpt-mock', input: 'go', tools };
    const computer = await openai.responses.create(
      params,
      script({
        calls: [
          { name: 'computer', typed: true },
          { name: 'teleport', typed: true },
        ],
      }),
    );
    // Only a typed tool's name makes a typed item; anything else stays a function call.
    expect(computer.output.map((i) => i.type)).toEqual(['computer_call', 'function_call']);
    const mcp = await openai.responses.create(
      params,
      script({ hosted: 'mcp', mcp: { server: 'internal', tool: 'query' } }),
    );
    expect(mcp.output.slice(0, 2)).toMatchObject([
      { type: 'mcp_list_tools', server_label: 'internal' },
      { type: 'mcp_call', server_label: 'internal', name: 'query' },
    ]);
  });

  it('answers errors the way OpenAI does', async () => {
    const failing = openai.responses.create(
      { model: 'gpt-mock', input: 'x' },
      script({ error: { status: 429, message: 'slow down' } }),
    );
    await expect(failing).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining('slow down'),
    });
    await expect(openai.responses.create({ input: 'x' } as never)).rejects.toMatchObject({
      status: 400,
    });
  });
});
