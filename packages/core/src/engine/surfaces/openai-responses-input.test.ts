import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import { hashLenient } from '../../hash/hash.ts';
import type { JsonObject } from '../../json/json-value.ts';
import type { RuleIdentity } from '../identity-match.ts';
import { fn, mediate, request, toolNames } from './responses-test-fixtures.ts';

/** The `input` of OpenAI Responses requests: what is refused, and what history and results are read. */

describe('openai-responses: bad input is refused with the field named', () => {
  const refused = (body: JsonObject): string[] => {
    try {
      mediate({ rules: [] }, body);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).causes.map((c) => `${c.field}: ${c.message}`);
    }
    throw new Error('not refused');
  };

  it.each<[string, JsonObject, RegExp]>([
    [
      'a tool without a name',
      request([fn('a'), fn('b'), { type: 'function' }]),
      /^tools\[2\]\.name: is required/,
    ],
    ['a tool without a type', request([{ name: 'x' }]), /^tools\[0\]\.type: is required/],
    [
      'an unknown tool type',
      request([{ type: 'teleport' }]),
      /^tools\[0\]\.type: "teleport" is not a tool type/,
    ],
    [
      'a namespace tool',
      request([{ type: 'namespace', name: 'n', tools: [] }]),
      /^tools\[0\]\.type: namespace tools/,
    ],
    [
      'client tool search',
      request([{ type: 'tool_search', execution: 'client' }]),
      /^tools\[0\]\.execution/,
    ],
    [
      'an MCP tool without a label',
      request([{ type: 'mcp', server_url: 'https://x' }]),
      /^tools\[0\]\.server_label: is required/,
    ],
    ['a stored prompt', request([], { prompt: { id: 'pmpt_1' } }), /^prompt: stored prompts/],
    [
      'a background response',
      request([], { background: true }),
      /^background: background responses/,
    ],
    ['input of the wrong type', request([], { input: 42 }), /^input: must be a string or an array/],
    [
      'a call without call_id',
      request([], {
        input: [
          { role: 'user', content: 'x' },
          { role: 'user', content: 'y' },
          { role: 'user', content: 'z' },
          { type: 'function_call', name: 'search', arguments: '{}' },
        ],
      }),
      /^input\[3\]\.call_id: is required/,
    ],
    [
      'an output without output',
      request([], { input: [{ type: 'function_call_output', call_id: 'c' }] }),
      /^input\[0\]\.output/,
    ],
    [
      'tools declared in input',
      request([], { input: [{ type: 'additional_tools', role: 'developer', tools: [fn('x')] }] }),
      /^input\[0\]: additional_tools items are not supported/,
    ],
    [
      'tools loaded by a client tool search',
      request([], { input: [{ type: 'tool_search_output', tools: [fn('x')] }] }),
      /^input\[0\]\.tools: tools loaded by a tool search/,
    ],
  ])('%s', (_label, body, message) => {
    expect(refused(body)[0]).toMatch(message);
  });

  it('refuses a request without a model, as the other surfaces do', () => {
    expect(() => mediate({ rules: [] }, { input: 'hi' })).toThrow(
      /ResponsesRequest is invalid: model/,
    );
  });
});

describe('openai-responses: history and results from input items', () => {
  const identity: RuleIdentity = { human: 'alice', trusted: ['human'] };
  const spec = {
    rules: [{ id: 'alias', action: 'rename' as const, match: { name: 'search' }, alias: 'find' }],
  };
  const tools = [fn('search'), fn('send')];

  it('links each function_call_output to its call and hashes it as the other surfaces do', () => {
    const body = request(tools, {
      input: [
        { role: 'user', content: 'go' },
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'search',
          arguments: '{"q":"cats"}',
        },
        { type: 'function_call_output', call_id: 'call_1', output: '{"hits": 3}' },
      ],
    });
    const result = mediate(spec, body, { identity });
    const released = result.response.decideCall('call_1', 'find', '{"q":"cats"}');
    expect(result.toolResults.entries).toEqual([
      {
        tool_call_id: 'call_1',
        action_id: released.action_id,
        result_hash: hashLenient({ hits: 3 }),
        is_error: false,
        elapsed_ms: null,
      },
    ]);
  });

  it('after previous_response_id, records results without the call it cannot see', () => {
    const body = request(tools, {
      previous_response_id: 'resp_123',
      input: [
        { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
        { type: 'function_call_output', call_id: 'call_2', output: 'also ok' },
      ],
    });
    const { entries } = mediate(spec, body).toolResults;
    expect(entries.map((e) => [e.tool_call_id, e.action_id])).toEqual([
      ['call_1', undefined],
      ['call_2', undefined],
    ]);
    expect(entries[0]?.result_hash).toBe(hashLenient('ok'));
  });

  it('gives a when: condition the calls the input carries as history', () => {
    const guarded = {
      rules: [
        {
          id: 'no-send-after-search',
          action: 'hide' as const,
          match: { name: 'send' },
          when: 'history.calls.exists(c, c.name == "search" && c.args.q == "secrets")',
        },
      ],
    };
    const withHistory = (q: string) =>
      request(tools, {
        input: [
          {
            type: 'function_call',
            call_id: 'c1',
            name: 'search',
            arguments: JSON.stringify({ q }),
          },
          { type: 'function_call_output', call_id: 'c1', output: 'x' },
        ],
      });
    expect(toolNames(mediate(guarded, withHistory('secrets')).body)).toEqual(['search']);
    expect(toolNames(mediate(guarded, withHistory('cats')).body)).toEqual(['search', 'send']);
  });
});
