import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import type { JsonObject } from '../json/json-value.ts';
import { MediationPolicySpec } from '../resources/mediation-policy.ts';
import { enforceResponseBody } from '../response/enforce-response.ts';
import { compileBundle } from './compile-bundle.ts';
import { compactParts, shortenDescription } from './hosted-tools.ts';
import { mediateRequest } from './mediate-request.ts';
import { anthropicRequest, anthropicTool, openAIRequest, openAITool } from './test-fixtures.ts';

const SEARCH = {
  name: 'approved_web_search',
  spec: {
    tool: {
      name: 'approved_web_search',
      description: 'Searches the web through the approved backend.',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    },
    endpoint: {
      url: 'https://search.internal.example/run',
      timeout: '5s',
      retries: 0,
      maxResponseBytes: 1024,
    },
  },
} as const;

function bundle(rules: unknown[], hosted?: unknown, extra: JsonObject = {}) {
  return compileBundle({
    policies: [
      {
        name: 'hosting',
        generation: 1,
        spec: { mode: 'execute', rules, ...(hosted ? { hosted } : {}), ...extra },
      },
    ],
    hostedTools: [SEARCH as never],
  });
}

const COMPACT = { id: 'compact-all', action: 'compact', match: { name: '*' }, description_max: 12 };

const bigTool = (name: string) =>
  openAITool(name, {
    description: `${name}: a long description that the compact form cuts short`,
    parameters: {
      type: 'object',
      properties: {
        owner: { type: 'string', description: 'Repository owner' },
        repo: { type: 'string', description: 'Repository name' },
      },
      required: ['owner', 'repo'],
      additionalProperties: false,
    },
  });

describe('policy schema', () => {
  it('refuses compact and host outside mode: execute, naming the rule action', () => {
    const result = MediationPolicySpec.safeParse({ mode: 'patch', rules: [COMPACT] });
    expect(result.success).toBe(false);
    const issue = result.error?.issues[0];
    expect(issue?.path).toEqual(['rules', 0, 'action']);
    expect(issue?.message).toMatch(/needs the policy's mode: execute \(mode is patch\)/);
  });

  it('refuses a name selector on a host rule', () => {
    const result = MediationPolicySpec.safeParse({
      mode: 'execute',
      rules: [{ id: 'h', action: 'host', tool: 'search', match: { name: 'x' } }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['rules', 0, 'match', 'name']);
    expect(result.error?.issues[0]?.message).toMatch(/select them by provider, model, identity/);
  });

  it('accepts an empty host match and fills the budget defaults', () => {
    const spec = MediationPolicySpec.parse({
      mode: 'execute',
      hosted: {},
      rules: [{ id: 'h', action: 'host', tool: 'search', match: {} }],
    });
    expect(spec.hosted).toEqual({
      maxCalls: 8,
      maxRounds: 4,
      maxAddedLatency: '30s',
      showHostedText: false,
      visibleToAgent: false,
    });
  });

  it('refuses a budget out of bounds, naming the field', () => {
    const result = MediationPolicySpec.safeParse({
      mode: 'execute',
      hosted: { maxAddedLatency: '1h' },
      rules: [],
    });
    expect(result.error?.issues[0]?.path).toEqual(['hosted', 'maxAddedLatency']);
  });
});

describe('compact', () => {
  it('advertises compact declarations and adds tool_info, recorded as the gateway’s', () => {
    const result = mediateRequest(bundle([COMPACT]), {
      surface: 'openai-chat',
      body: openAIRequest([bigTool('create_issue'), bigTool('list_issues')]),
    });
    const tools = result.body.tools as JsonObject[];
    expect(tools.map((t) => (t.function as JsonObject).name)).toEqual([
      'create_issue',
      'list_issues',
      'tool_info',
    ]);
    expect(tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'create_issue',
        description: 'create_issu…',
        parameters: { type: 'object', properties: { owner: {}, repo: {} } },
      },
    });
    const info = result.tools.find((t) => t.name === 'tool_info');
    expect(info).toMatchObject({
      declared_by: 'wardwright',
      executed_by: 'wardwright',
      visible_to_agent: false,
      visible_to_provider: true,
      fidelity: 'emulated',
    });
    expect(result.tools[0]?.policy_state).toBe('wrapped');
    expect(result.mediation?.mode).toBe('execute');
    expect(result.hosted?.offers.get('tool_info')).toEqual({ tool: 'tool_info' });
    expect(result.hosted?.compacted.get('create_issue')?.parameters).toMatchObject({
      required: ['owner', 'repo'],
    });
  });

  it('writes Anthropic declarations in Anthropic form', () => {
    const result = mediateRequest(bundle([COMPACT]), {
      surface: 'anthropic-messages',
      body: anthropicRequest([anthropicTool('search')]),
    });
    const tools = result.body.tools as JsonObject[];
    expect(tools[0]).toEqual({
      name: 'search',
      description: 'search tool',
      input_schema: { type: 'object', properties: { q: {} } },
    });
    expect(tools[1]?.name).toBe('tool_info');
    expect(tools[1]?.input_schema).toMatchObject({ required: ['name'] });
  });

  it('refuses an agent tool named tool_info with a 400 naming the field', () => {
    const run = () =>
      mediateRequest(bundle([COMPACT]), {
        surface: 'openai-chat',
        body: openAIRequest([bigTool('create_issue'), openAITool('tool_info')]),
      });
    expect(run).toThrow(ValidationError);
    expect(run).toThrow(/tools\[1\]\.name/);
  });

  it('lets a policy rename the gateway’s tool_info instead', () => {
    const result = mediateRequest(bundle([COMPACT], { toolInfoName: 'gateway_tool_info' }), {
      surface: 'openai-chat',
      body: openAIRequest([bigTool('create_issue'), openAITool('tool_info')]),
    });
    const names = (result.body.tools as JsonObject[]).map((t) => (t.function as JsonObject).name);
    expect(names).toEqual(['create_issue', 'tool_info', 'gateway_tool_info']);
    // The agent's own tool_info was compacted like the others; the gateway's is hosted.
    expect(result.hosted?.offers.has('gateway_tool_info')).toBe(true);
    expect(result.hosted?.offers.has('tool_info')).toBe(false);
  });

  it('changes nothing without a compacted tool (no tool_info, no plan)', () => {
    const b = bundle([{ ...COMPACT, match: { name: 'nothing_here' } }]);
    const body = openAIRequest([openAITool('search')]);
    const result = mediateRequest(b, { surface: 'openai-chat', body });
    expect(result.changed).toBe(false);
    expect(result.body).toBe(body);
    expect(result.hosted).toBeUndefined();
  });

  it('withholds a hosted call that reaches the response side, with a note', () => {
    const result = mediateRequest(bundle([COMPACT]), {
      surface: 'openai-chat',
      body: openAIRequest([bigTool('create_issue')]),
    });
    const enforced = enforceResponseBody(
      {
        id: 'c',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'tool_info', arguments: '{"name":"create_issue"}' },
                },
              ],
            },
          },
        ],
      },
      result.response,
    );
    const message = (enforced.body as { choices: { message: JsonObject }[] }).choices[0]?.message;
    expect(message?.tool_calls).toBeUndefined();
    expect(message?.content).toMatch(/hosted-tool budget is exhausted/);
    expect(enforced.evidence.tool_calls[0]).toMatchObject({
      name: 'tool_info',
      policy_state: 'blocked',
      reason: 'hosted',
    });
  });
});

describe('host', () => {
  const HOST = {
    id: 'offer-search',
    action: 'host',
    tool: 'approved_web_search',
    match: { provider: 'openai-chat' },
  };

  it('offers the HostedTool to matching requests only', () => {
    const b = bundle([HOST]);
    const chat = mediateRequest(b, {
      surface: 'openai-chat',
      body: openAIRequest([openAITool('search')]),
    });
    expect((chat.body.tools as JsonObject[]).map((t) => (t.function as JsonObject).name)).toEqual([
      'search',
      'approved_web_search',
    ]);
    expect(chat.hosted?.offers.get('approved_web_search')?.resource?.name).toBe(
      'approved_web_search',
    );
    expect(chat.tools[1]).toMatchObject({ executed_by: 'wardwright', fidelity: 'emulated' });
    const anthropic = mediateRequest(b, {
      surface: 'anthropic-messages',
      body: anthropicRequest([anthropicTool('search')]),
    });
    expect(anthropic.hosted).toBeUndefined();
    expect(anthropic.changed).toBe(false);
  });

  it('evaluates when with tool as the hosted tool', () => {
    const b = bundle([
      { ...HOST, match: {}, when: 'tool.name == "approved_web_search" && request.model == "m1"' },
    ]);
    const body = (model: string) => openAIRequest([openAITool('a')], { model });
    expect(mediateRequest(b, { surface: 'openai-chat', body: body('m1') }).hosted).toBeDefined();
    expect(mediateRequest(b, { surface: 'openai-chat', body: body('m2') }).hosted).toBeUndefined();
  });

  it('marks hosted tools visible to the agent when the policy says so', () => {
    const b = bundle([HOST], { visibleToAgent: true });
    const result = mediateRequest(b, { surface: 'openai-chat', body: openAIRequest([]) });
    expect(result.tools[0]).toMatchObject({ name: 'approved_web_search', visible_to_agent: true });
  });
});

describe('compact declaration (property)', () => {
  const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/);
  const property = fc.record({
    type: fc.constantFrom('string', 'integer', 'boolean', 'array', 'object'),
    description: fc.string({ maxLength: 200 }),
  });
  const schema = fc
    .dictionary(identifier, property, { minKeys: 1, maxKeys: 12 })
    .map((properties) => ({
      type: 'object',
      properties,
      required: Object.keys(properties).slice(0, 1),
      additionalProperties: false,
    }));

  it('keeps the name and every parameter name, in fewer bytes', () => {
    fc.assert(
      fc.property(
        identifier,
        fc.string({ maxLength: 400 }),
        schema,
        (name, description, parameters) => {
          const compact = compactParts({ name, description, parameters }, 80);
          expect(compact.name).toBe(name);
          expect(Object.keys(compact.parameters?.properties as JsonObject)).toEqual(
            Object.keys(parameters.properties),
          );
          const full = JSON.stringify({ name, description, parameters });
          expect(JSON.stringify(compact).length).toBeLessThan(full.length);
          // Permissive: no keyword that could refuse arguments the full schema accepts.
          expect(compact.parameters?.required).toBeUndefined();
          expect(compact.parameters?.additionalProperties).toBeUndefined();
          for (const value of Object.values(compact.parameters?.properties as JsonObject)) {
            expect(value).toEqual({});
          }
        },
      ),
    );
  });

  it('cuts descriptions by code point, never splitting a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), fc.nat(60), (text, max) => {
        const cut = shortenDescription(text, max);
        if (cut === undefined) {
          expect(max).toBe(0);
        } else {
          expect(Array.from(cut).length).toBeLessThanOrEqual(max === 0 ? 0 : max);
          expect(/\p{Cs}/u.test(cut)).toBe(false);
          if (Array.from(text).length <= max) expect(cut).toBe(text);
        }
      }),
    );
  });
});
