import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Receipt, verifyChain } from '@toolgate/core';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'apps/cli/bin/toolgate.js');
const policy = join(root, 'examples/policies/github-guardrails.yaml');
const request = join(root, 'examples/requests/openai-chat.json');

/** Runs the real `toolgate` executable, as a user would. */
function toolgate(...args: string[]) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function tempFile(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('toolgate eval', () => {
  it('prints the mediated provider request and a verifiable receipt', () => {
    const { code, stdout, stderr } = toolgate('eval', '--policy', policy, '--request', request);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as {
      providerRequest: { tools: Array<{ function: { name: string } }> };
      receipt: Receipt;
    };
    expect(out.providerRequest.tools.map((t) => t.function.name)).toEqual([
      'search_code',
      'approved_web_search',
      'gh_create_issue',
      'jira_search',
    ]);
    expect(out.receipt.wardwright_tool_mediation?.applied_rules.map((r) => r.id)).toEqual([
      'hide-pr-creation',
      'search-scope',
      'replace-web-search',
      'short-issue-name',
    ]);
    expect(verifyChain([out.receipt]).valid).toBe(true);
  });

  it('evaluates an OpenAI Responses request, detected as such, and its answer', () => {
    const { code, stdout, stderr } = toolgate(
      'eval',
      '-p',
      policy,
      '-r',
      join(root, 'examples/requests/openai-responses.json'),
      '--response',
      join(root, 'examples/responses/openai-responses.json'),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as {
      providerRequest: { tools: Array<{ type: string; name?: string; server_label?: string }> };
      agentResponse: { output: Array<{ type: string; name?: string }> };
      decisions: Array<{ name: string; policy_state: string; reason?: string }>;
      receipt: Receipt;
    };
    expect(out.receipt.surface).toBe('openai-responses');
    expect(out.providerRequest.tools.map((t) => t.name ?? t.server_label)).toEqual([
      'search_code',
      'approved_web_search',
      'gh_create_issue',
      'docs',
    ]);
    expect(out.agentResponse.output.map((i) => [i.type, i.name])).toEqual([
      ['mcp_list_tools', undefined],
      ['mcp_call', 'search_docs'],
      ['message', undefined],
      ['function_call', 'github/create_issue'],
    ]);
    expect(out.decisions.map((d) => [d.name, d.policy_state, d.reason])).toEqual([
      ['github/create_issue', 'allowed', undefined],
      ['create_pull_request', 'blocked', 'hidden'],
    ]);
    expect(out.receipt.tool_results?.map((r) => r.tool_call_id)).toEqual(['call_search_1']);
    expect(out.receipt.response?.hosted_tool_events.map((e) => e.provider_type)).toEqual([
      'mcp_list_tools',
      'mcp_call:docs/search_docs',
    ]);
    // The tool list names no tool: its server is kept on its own.
    expect(out.receipt.response?.hosted_tool_events[0]?.server).toBe('docs');
    expect(verifyChain([out.receipt]).valid).toBe(true);
    // Golden vector: the same inputs give this receipt, byte for byte, on every machine (it
    // changed once, when the tool list's server was first recorded).
    expect(out.receipt.hash).toMatchInlineSnapshot(
      `"sha256:0ae1ad5be4d95685100bcad80fa12badbf0ea567e46538899ac8516df0326c5e"`,
    );
  });

  it('evaluates a streamed Responses answer with --surface responses as it does the JSON one', () => {
    const responses = join(root, 'examples/requests/openai-responses.json');
    const streaming = { ...JSON.parse(readFileSync(responses, 'utf8')), stream: true };
    const run = (...args: string[]) => {
      const { code, stdout, stderr } = toolgate('eval', '-p', policy, ...args);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      return JSON.parse(stdout);
    };
    const json = run('-r', responses, '--response', 'examples/responses/openai-responses.json');
    const streamed = run(
      ...['-r', tempFile('responses-stream.json', JSON.stringify(streaming))],
      ...['--surface', 'responses'],
      ...['--response', 'examples/responses/openai-responses-stream.sse'],
    );
    expect(streamed.receipt).toMatchObject({ surface: 'openai-responses', stream: true });
    expect(streamed.providerRequest.stream).toBe(true);
    expect(streamed.decisions).toEqual(json.decisions);
    expect(streamed.receipt.response).toEqual(json.receipt.response);
    // The hidden call's item and every fragment of its arguments are gone from the stream.
    expect(streamed.agentResponse).not.toContain('create_pull_request');
    expect(streamed.agentResponse).not.toContain('sneaky');
    const events = (streamed.agentResponse as string)
      .split('\n\n')
      .filter((e) => e.includes('data: '))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const added = events.filter((e) => e.type === 'response.output_item.added');
    expect(added.map((e) => [e.output_index, e.item.type, e.item.name])).toEqual([
      [0, 'mcp_list_tools', undefined],
      [1, 'mcp_call', 'search_docs'],
      [2, 'message', undefined],
      [3, 'function_call', 'github/create_issue'],
    ]);
    expect(events.at(-1)?.response.output).toEqual(json.agentResponse.output);
    expect(verifyChain([streamed.receipt]).valid).toBe(true);
  });

  it('is deterministic', () => {
    const a = toolgate('eval', '-p', policy, '-r', request);
    const b = toolgate('eval', '-p', policy, '-r', request);
    expect(a.stdout).toBe(b.stdout);
  });

  it('accepts a bare Wardwright tool_mediation block and an Anthropic request', () => {
    const { code, stdout } = toolgate(
      'eval',
      '--policy',
      join(root, 'examples/policies/tool-mediation-block.yaml'),
      '--request',
      join(root, 'examples/requests/anthropic-messages.json'),
    );
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.receipt.surface).toBe('anthropic-messages');
    expect(out.providerRequest.tools.map((t: { name: string }) => t.name)).toEqual([
      'search_code',
      'web_search',
    ]);
    expect(out.providerRequest).not.toHaveProperty('tool_choice'); // it named the hidden tool
  });

  it('evaluates a Gemini request (detected), its model given with --model, and its stream', () => {
    const gemini = join(root, 'examples/requests/gemini.json');
    const stream = join(root, 'examples/responses/gemini-stream.sse');
    const { code, stdout, stderr } = toolgate(
      'eval',
      ...['-p', policy, '-r', gemini, '--model', 'gemini-2.5-flash', '--response', stream],
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.receipt).toMatchObject({
      surface: 'gemini',
      model: 'gemini-2.5-flash',
      stream: true,
    });
    expect(out.providerRequest.tools).toEqual([
      {
        functionDeclarations: [
          expect.objectContaining({ name: 'search_code' }),
          expect.objectContaining({ name: 'gh_create_issue' }),
          // No rule renames it: a Gemini-legal alias of its own.
          expect.objectContaining({ name: 'jira_search' }),
        ],
      },
      { googleSearch: {} },
    ]);
    expect(out.providerRequest.toolConfig.functionCallingConfig.allowedFunctionNames).toEqual([
      'gh_create_issue',
    ]);
    expect(out.agentResponse).not.toContain('create_pull_request');
    expect(out.agentResponse).toContain('"name":"github/create_issue"');
    expect(
      out.decisions.map((d: { name: string; policy_state: string }) => [d.name, d.policy_state]),
    ).toEqual([
      ['create_pull_request', 'blocked'],
      ['github/create_issue', 'allowed'],
    ]);
    expect(out.receipt.response.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.web_search.v1',
      sources: ['https://example.com/ci-retries'],
    });
    expect(verifyChain([out.receipt]).valid).toBe(true);
    const missing = toolgate('eval', '-p', policy, '-r', gemini);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--model');
  });

  it('enforces a streamed response given with --response', () => {
    const sse = [
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_9","type":"function","function":{"name":"create_pull_request","arguments":""}}]},"finish_reason":null}]}',
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"title\\":\\"LEAKED-FRAGMENT\\"}"}}]},"finish_reason":null}]}',
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
      'data: [DONE]',
      '',
      '',
    ].join('\n\n');
    const { code, stdout } = toolgate(
      'eval',
      '-p',
      policy,
      '-r',
      request,
      '--response',
      tempFile('stream.sse', sse),
    );
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.agentResponse).not.toContain('LEAKED-FRAGMENT');
    expect(out.agentResponse).toContain('"finish_reason":"stop"');
    expect(out.receipt.response.tool_calls[0]).toMatchObject({
      name: 'create_pull_request',
      policy_state: 'blocked',
    });
  });

  it('shows call-time decisions with --response; --approved lets an approved action through', () => {
    const callTime = join(root, 'examples/policies/call-time-rules.yaml');
    const answer = join(root, 'examples/responses/openai-call-time.json');
    const run = (...extra: string[]) => {
      const { code, stdout, stderr } = toolgate(
        'eval',
        '-p',
        callTime,
        '-r',
        request,
        '--response',
        answer,
        '--user',
        'alice',
        '--proven',
        ...extra,
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      return JSON.parse(stdout);
    };
    const out = run();
    expect(out.decisions.map((d: { outcome: string }) => d.outcome)).toEqual([
      'deny',
      'approval_required',
      'allow',
    ]);
    expect(out.decisions[0]).toMatchObject({
      rule: 'pr-only-in-app-repo',
      policy_state: 'blocked',
    });
    const approval = out.decisions[1].approval as string;
    expect(out.approvalRequests).toEqual([
      expect.objectContaining({ actionId: approval, tool: 'github/create_issue' }),
    ]);
    const message = out.agentResponse.choices[0].message;
    expect(message.content).toBe(
      `On it.\n\nPull requests may only be opened in acme/app.\n\n${out.decisions[1].message}`,
    );
    expect(message.tool_calls.map((c: { id: string }) => c.id)).toEqual(['call_3']);
    const approved = run('--approved', approval);
    expect(approved.decisions[1]).toMatchObject({ outcome: 'approved', policy_state: 'allowed' });
    expect(approved.approvalRequests).toEqual([]);
    const bad = toolgate(
      'eval',
      '-p',
      callTime,
      '-r',
      request,
      '--response',
      answer,
      '--approved',
      'nope',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--approved: not an action id');
  });

  it('treats --user as an unproven header claim unless --proven says a token proved it', () => {
    const scoped = tempFile(
      'contractors.yaml',
      'apiVersion: toolgate.dev/v1\nkind: MediationPolicy\nmetadata: {name: c}\nspec:\n  rules:\n    - {id: no-search, action: hide, match: {name: search_code, identity: {human: contractor-*}}}\n',
    );
    const run = (...extra: string[]) => {
      const out = JSON.parse(toolgate('eval', '-p', scoped, '-r', request, ...extra).stdout);
      const names = out.providerRequest.tools.map(
        (t: { function: { name: string } }) => t.function.name,
      );
      return { searchVisible: names.includes('search_code'), identity: out.receipt.identity };
    };
    // A claim may be anyone's: the contractor hide applies, whatever name is sent.
    expect(run('--user', 'alice')).toEqual({
      searchVisible: false,
      identity: { human: 'alice', binding: 'unverified' },
    });
    expect(run('--user', 'alice', '--proven')).toEqual({
      searchVisible: true,
      identity: { human: 'alice', binding: 'verified' },
    });
    expect(run('--user', 'contractor-7', '--proven').searchVisible).toBe(false);
    const both = toolgate(
      'eval',
      '-p',
      scoped,
      '-r',
      request,
      '--user',
      'a',
      '--service',
      'b',
      '--proven',
    );
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--proven: give exactly one of --user or --service');
  });

  it('fails with the field path of an invalid policy', () => {
    const bad = tempFile(
      'bad.yaml',
      'apiVersion: toolgate.dev/v1\nkind: MediationPolicy\nmetadata: {name: bad}\nspec:\n  rules:\n    - {id: a, action: hide, match: {name: x}}\n    - {id: b, action: hide, match: {name: y}}\n    - {id: c, action: hide, match: {name: ""}}\n',
    );
    const { code, stderr, stdout } = toolgate('eval', '-p', bad, '-r', request);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('spec.rules[2].match.name');
  });

  it('fails with the field path of an invalid request', () => {
    const bad = tempFile(
      'req.json',
      JSON.stringify({ model: 'm', tools: [{ type: 'function', function: {} }] }),
    );
    const { code, stderr } = toolgate('eval', '-p', policy, '-r', bad);
    expect(code).toBe(1);
    expect(stderr).toContain('tools[0].function.name');
  });

  it.each([
    [['eval', '-p', 'missing.yaml', '-r', request], 1, 'missing.yaml: no such file'],
    [['eval', '-p', policy, '-r', request, '--surface', 'cohere'], 1, '--surface'],
    [['eval', '-p', policy], 2, "required option '-r, --request <file>'"],
    [['frobnicate'], 2, "unknown command 'frobnicate'"],
  ])('%j exits %i mentioning %s', (args, expectedCode, message) => {
    const { code, stderr } = toolgate(...args);
    expect(code).toBe(expectedCode);
    expect(stderr).toContain(message);
  });

  it('explains itself with --help', () => {
    const top = toolgate('--help');
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('eval');
    const sub = toolgate('eval', '--help');
    expect(sub.code).toBe(0);
    for (const flag of ['--policy', '--request', '--surface', '--response', 'Exit codes']) {
      expect(sub.stdout).toContain(flag);
    }
  });
});
