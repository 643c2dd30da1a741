import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compileBundle,
  enforceResponseBody,
  isJsonObject,
  mediateRequest,
  type Surface,
} from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { parseDocuments } from './documents.ts';
import { policiesFromDocuments } from './policy-documents.ts';
import { parseResourceDocument } from './resource-files.ts';
import { REPOSITORY_ROOT } from './testing/run-cli.ts';

/**
 * docs/policies.md cannot rot: every YAML example must be valid under the schemas the API uses,
 * and the effects an example claims in its leading comments are what the real engine does:
 *
 *   # agent offers: a, b          the request's function tools (OpenAI Responses: `type:web_search`
 *                                 is the typed tool {type: web_search}, `mcp:github` an MCP tool)
 *   # provider sees: b            tool names in the provider request (`nothing`: no tools)
 *   # surface / model / identity  the request's surface, model, identity (`human=alice`)
 *   # applied: policy/rule, …     applied_rules of the receipt, in order (observed: observed_rules)
 *   # blocks: name {args}         a provider call the response side blocks (allows: lets through;
 *                                 defers: withholds until approved)
 */

const DOC = 'docs/policies.md';
const text = readFileSync(join(REPOSITORY_ROOT, DOC), 'utf8');

interface Example {
  line: number;
  yaml: string;
  claims: Map<string, string[]>;
}

function examples(): Example[] {
  const found: Example[] = [];
  const fence = /^```yaml\n([\s\S]*?)^```$/gm;
  for (const match of text.matchAll(fence)) {
    const yaml = match[1] ?? '';
    const claims = new Map<string, string[]>();
    for (const [, key = '', value = ''] of yaml.matchAll(/^# ([a-z ]+): (.*)$/gm)) {
      claims.set(key, [...(claims.get(key) ?? []), value.trim()]);
    }
    found.push({ line: text.slice(0, match.index).split('\n').length + 1, yaml, claims });
  }
  return found;
}

const list = (value: string | undefined) =>
  value === undefined || value === 'nothing' ? [] : value.split(',').map((item) => item.trim());

/** Gemini's built-in tools, declared as `tools[]` entries of their own (`{googleSearch: {}}`). */
const GEMINI_BUILT_INS = new Set([
  'googleSearch',
  'googleSearchRetrieval',
  'codeExecution',
  'urlContext',
]);

/** An OpenAI Responses tool: `type:<type>`, `mcp:<server_label>`, or a flat function tool. */
function responsesTool(name: string) {
  if (name.startsWith('type:')) return { type: name.slice('type:'.length) };
  if (name.startsWith('mcp:')) {
    const label = name.slice('mcp:'.length);
    return { type: 'mcp', server_label: label, server_url: `https://mcp.example.com/${label}` };
  }
  return {
    type: 'function',
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
    strict: false,
  };
}

function requestFor(surface: Surface, model: string, tools: string[]) {
  const messages = [{ role: 'user', content: 'Help me with the repository.' }];
  if (surface === 'gemini') {
    const functions = tools.filter((name) => !GEMINI_BUILT_INS.has(name));
    return {
      contents: [{ role: 'user', parts: [{ text: 'Help me with the repository.' }] }],
      tools: [
        {
          functionDeclarations: functions.map((name) => ({
            name,
            description: `The ${name} tool.`,
            parametersJsonSchema: { type: 'object', properties: { query: { type: 'string' } } },
          })),
        },
        ...tools.filter((name) => GEMINI_BUILT_INS.has(name)).map((name) => ({ [name]: {} })),
      ],
    };
  }
  if (surface === 'openai-responses')
    return { model, input: messages, tools: tools.map(responsesTool) };
  return surface === 'openai-chat'
    ? {
        model,
        messages,
        tools: tools.map((name) => ({
          type: 'function',
          function: {
            name,
            description: `The ${name} tool.`,
            parameters: { type: 'object', properties: { query: { type: 'string' } } },
          },
        })),
      }
    : {
        model,
        max_tokens: 1024,
        messages,
        tools: tools.map((name) => ({
          name,
          description: `The ${name} tool.`,
          input_schema: { type: 'object', properties: { query: { type: 'string' } } },
        })),
      };
}

function providerToolNames(surface: Surface, body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (surface === 'gemini') {
    // Function declarations first (one entry), then each built-in by its field.
    return (tools as Array<Record<string, unknown>>).flatMap((tool) =>
      Object.entries(tool).flatMap(([field, value]) =>
        field === 'functionDeclarations'
          ? (value as Array<{ name: string }>).map((d) => d.name)
          : [field],
      ),
    );
  }
  return tools.map((tool) => {
    if (surface === 'openai-chat')
      return String((tool as { function: { name: string } }).function.name);
    const { name, type, server_label } = tool as {
      name?: string;
      type?: string;
      server_label?: string;
    };
    if (surface !== 'openai-responses' || name !== undefined) return String(name);
    return type === 'mcp' ? `mcp:${server_label}` : `type:${type}`;
  });
}

function responseWithCall(surface: Surface, name: string, args: unknown) {
  if (surface === 'gemini') {
    return {
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { name, args } }] },
          finishReason: 'STOP',
        },
      ],
    };
  }
  if (surface === 'openai-responses') {
    const call = { type: 'function_call', id: 'fc_doc', call_id: 'call_doc', name };
    // A typed call of an agent-run tool comes back in its own item.
    const item =
      name === 'computer'
        ? { type: 'computer_call', id: 'cu_doc', call_id: 'call_doc', action: args }
        : { ...call, arguments: JSON.stringify(args) };
    return { id: 'resp_doc', object: 'response', status: 'completed', output: [item] };
  }
  return surface === 'openai-chat'
    ? {
        id: 'chatcmpl-doc',
        object: 'chat.completion',
        model: 'm',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_doc',
                  type: 'function',
                  function: { name, arguments: JSON.stringify(args) },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      }
    : {
        id: 'msg_doc',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [{ type: 'tool_use', id: 'toolu_doc', name, input: args }],
        stop_reason: 'tool_use',
      };
}

const all = examples();

describe(DOC, () => {
  it('has examples for every rule action, mode, selectors and merging', () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const needle of [
      'action: hide',
      'action: augment',
      'action: replace',
      'action: rename',
      'action: deny',
      'action: require_approval',
      'action: rate_limit',
      'mode: observe',
      'matchExpressions',
      'priority: 100',
      'declared_by',
      'identity:',
      'metaTools',
      'redact',
      'unknownIdentities',
      'tool_mediation:',
    ]) {
      expect(
        all.some((e) => e.yaml.includes(needle)),
        needle,
      ).toBe(true);
    }
  });

  describe.each(all.map((example) => [example.line, example] as const))(
    'the example at line %i',
    (_line, example) => {
      const docs = parseDocuments(example.yaml, `${DOC}:${example.line}`);

      it('is valid', () => {
        for (const [index, doc] of docs.entries()) {
          if (isJsonObject(doc) && 'tool_mediation' in doc) {
            expect(() => policiesFromDocuments([doc], DOC)).not.toThrow();
          } else {
            expect(() =>
              parseResourceDocument({ file: DOC, index: index + 1, value: doc }),
            ).not.toThrow();
          }
        }
      });

      const offers = example.claims.get('agent offers')?.[0];
      if (offers === undefined) return;

      it('does what it says', () => {
        const surface = (example.claims.get('surface')?.[0] ?? 'openai-chat') as Surface;
        const model = example.claims.get('model')?.[0] ?? 'gpt-4o-mini';
        const identity = Object.fromEntries(
          list(example.claims.get('identity')?.[0]).map((pair) => pair.split('=')),
        );
        const policies = policiesFromDocuments(
          docs.filter((doc) => !isJsonObject(doc) || doc.kind !== 'Gateway'),
          DOC,
        );
        const bundle = compileBundle({ policies });
        const result = mediateRequest(bundle, {
          surface,
          body: requestFor(surface, model, list(offers)),
          identity,
          // Gemini names the model in the URL path.
          ...(surface === 'gemini' ? { target: { model, stream: false } } : {}),
        });
        expect(providerToolNames(surface, result.body)).toEqual(
          list(example.claims.get('provider sees')?.[0]),
        );
        const ruleRefs = (rules: Array<{ id: string; policy?: string }> | undefined) =>
          (rules ?? []).map((rule) => `${rule.policy}/${rule.id}`);
        const applied = example.claims.get('applied')?.[0];
        if (applied !== undefined) {
          expect(ruleRefs(result.mediation?.applied_rules)).toEqual(list(applied));
        }
        const observed = example.claims.get('observed')?.[0];
        if (observed !== undefined) {
          expect(result.changed).toBe(false);
          expect(ruleRefs(result.mediation?.observed_rules)).toEqual(list(observed));
        }
        for (const [claim, state] of [
          ['blocks', 'blocked'],
          ['allows', 'allowed'],
          ['defers', 'deferred'],
        ] as const) {
          for (const call of example.claims.get(claim) ?? []) {
            const space = call.indexOf(' ');
            const name = call.slice(0, space);
            const response = responseWithCall(surface, name, JSON.parse(call.slice(space + 1)));
            const { evidence } = enforceResponseBody(response, result.response);
            expect(
              evidence.tool_calls.map((c) => c.policy_state),
              call,
            ).toEqual([state]);
          }
        }
      });
    },
  );
});
