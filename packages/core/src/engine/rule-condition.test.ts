import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json-value.ts';
import { MediationPolicySpec } from '../resources/mediation-policy.ts';
import type { RuleIdentity } from './identity-match.ts';
import { mediateRequest } from './mediate-request.ts';
import { bindConditionVars, compileCondition } from './rule-condition.ts';
import {
  anthropicRequest,
  anthropicTool,
  bundleOf,
  openAIRequest,
  openAITool,
  openAIToolNames,
} from './test-fixtures.ts';

const contractor: RuleIdentity = { human: 'contractor-ann', trusted: ['human', 'service'] };
const employee: RuleIdentity = { human: 'bob', trusted: ['human', 'service'] };
const claimedContractor: RuleIdentity = { human: 'contractor-ann', trusted: [] };

function hideWhen(when: string, action: 'hide' | 'rename' = 'hide') {
  const rule =
    action === 'hide'
      ? { id: 'r1', action, match: { name: 'delete_repo' }, when }
      : { id: 'r1', action, match: { name: 'delete_repo' }, when, alias: 'dr' };
  return bundleOf({ rules: [rule] });
}

const tools = [openAITool('delete_repo'), openAITool('read_file')];

describe('when: variables', () => {
  const history = openAIRequest(tools, {
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"/etc/passwd"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
    ],
  });
  const cases: Array<[string, RuleIdentity, JsonObject, boolean]> = [
    ["identity.human.startsWith('contractor-')", contractor, history, true],
    ["identity.human.startsWith('contractor-')", employee, history, false],
    ["identity.binding == 'verified'", employee, history, true],
    ["identity.binding == 'verified'", claimedContractor, history, false],
    ["tool.name == 'delete_repo' && tool.declared_by == 'agent'", employee, history, true],
    ["tool.type == 'function'", employee, history, true],
    ["request.surface == 'openai-chat' && request.model == 'gpt-4o'", employee, history, true],
    ["request.model == 'gpt-4o-mini'", employee, history, false],
    ["'read_file' in history.tools", employee, history, true],
    ["history.calls.exists(c, c.args.path.startsWith('/etc'))", employee, history, true],
    ['size(history.tools) == 0', employee, openAIRequest(tools), true],
  ];
  it.each(cases)('%s', (when, identity, body, hidden) => {
    const result = mediateRequest(hideWhen(when), { surface: 'openai-chat', body, identity });
    expect(openAIToolNames(result.body).includes('delete_repo')).toBe(!hidden);
  });

  it('reads Anthropic tool_use blocks and legacy function_call into history', () => {
    const anthropic = anthropicRequest([anthropicTool('delete_repo')], {
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't', name: 'ls', input: { a: 1 } }],
        },
      ],
    });
    const bundle = hideWhen("history.calls.exists(c, c.name == 'ls' && c.args.a == 1.0)");
    const out = mediateRequest(bundle, { surface: 'anthropic-messages', body: anthropic });
    expect((out.body.tools as JsonObject[] | undefined) ?? []).toEqual([]);
    const legacy = openAIRequest(tools, {
      messages: [{ role: 'assistant', function_call: { name: 'ls', arguments: 'not json' } }],
    });
    const bundle2 = hideWhen("history.calls.exists(c, c.args == 'not json')");
    expect(
      openAIToolNames(mediateRequest(bundle2, { surface: 'openai-chat', body: legacy }).body),
    ).toEqual(['read_file']);
  });
});

describe('when: compile errors name the field and the position', () => {
  const cases: Array<[string, RegExp]> = [
    ['x == 1', /1:1: undeclared reference 'x'/],
    ["tool.name == 'a' && identity.nme == 'b'", /1:29: undefined field 'nme'/],
    ["args.path == '/'", /'args' is only defined for call-time actions/],
    ["tool.name == 'a' &&", /1:/],
    ['lowerAscii(tool.name)', /undeclared reference to function 'lowerAscii'/],
    ['history.calls.all(a, history.calls.all(b, history.calls.all(c, true)))', /nest more/],
    [Array.from({ length: 200 }, () => '1').join('+'), /more than 256 nodes/],
  ];
  it.each(cases)('%s', (when, message) => {
    const parsed = MediationPolicySpec.safeParse({
      rules: [{ id: 'r', action: 'hide', match: { name: 'x' }, when }],
    });
    expect(parsed.success).toBe(false);
    const issue = parsed.error?.issues[0];
    expect(issue?.path).toEqual(['rules', 0, 'when']);
    expect(issue?.message).toMatch(message);
  });
});

describe('when: runtime errors', () => {
  const when = "identity.human.startsWith('contractor-')";
  it('fail a restricting rule closed for an unproven caller, and record it', () => {
    const out = mediateRequest(hideWhen(when), {
      surface: 'openai-chat',
      body: openAIRequest(tools),
      identity: claimedContractor,
    });
    expect(openAIToolNames(out.body)).toEqual(['read_file']);
    expect(out.mediation?.annotations).toEqual(['rule_error:r1']);
    // The call side refuses it too.
    expect(out.response.decideCall('c', 'delete_repo', '{}').policy_state).toBe('blocked');
  });
  it('do not apply a non-restricting rule, and record it', () => {
    const out = mediateRequest(hideWhen(when, 'rename'), {
      surface: 'openai-chat',
      body: openAIRequest(tools),
    });
    expect(openAIToolNames(out.body)).toEqual(['delete_repo', 'read_file']);
    expect(out.mediation?.annotations).toEqual(['rule_error:r1']);
    expect(out.mediation?.applied_rules).toEqual([]);
  });
});

describe('when: and the memo', () => {
  it('keys catalog outcomes by condition results', () => {
    const bundle = hideWhen("identity.human.startsWith('contractor-')");
    const run = (identity: RuleIdentity) =>
      openAIToolNames(
        mediateRequest(bundle, { surface: 'openai-chat', body: openAIRequest(tools), identity })
          .body,
      );
    expect(run(employee)).toEqual(['delete_repo', 'read_file']);
    expect(run(contractor)).toEqual(['read_file']);
    expect(run(employee)).toEqual(['delete_repo', 'read_file']);
  });
});

describe('when: true / false', () => {
  const name = fc.constantFrom('delete_repo', 'read_file', 'ls', 'Delete_Repo');
  const rule = fc.record({
    id: fc.constantFrom('a', 'b', 'c'),
    action: fc.constantFrom('hide', 'rename', 'augment'),
    match: fc.record({ name: fc.constantFrom('delete_repo', '*', 'read_*') }),
  });
  const toSpecRule = (r: { id: string; action: string; match: { name: string } }) =>
    r.action === 'rename'
      ? { ...r, alias: `${r.id}_alias` }
      : r.action === 'augment'
        ? { ...r, description_append: 'careful' }
        : r;
  it('equals the rule without when, and no rule at all', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(rule, { selector: (r) => r.id, minLength: 1, maxLength: 3 }),
        fc.uniqueArray(name, { minLength: 1 }),
        fc.nat(),
        (rules, names, pick) => {
          const body = openAIRequest(names.map((n) => openAITool(n)));
          const specRules = rules.map(toSpecRule);
          const target = pick % specRules.length;
          const mediate = (list: object[]) =>
            mediateRequest(bundleOf({ rules: list as never }), { surface: 'openai-chat', body })
              .body;
          const withWhen = (when: string) =>
            specRules.map((r, i) => (i === target ? { ...r, when } : r));
          expect(mediate(withWhen('true'))).toEqual(mediate(specRules));
          expect(mediate(withWhen('false'))).toEqual(
            mediate(specRules.filter((_, i) => i !== target)),
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('when: bound values', () => {
  const vars = (args: unknown, identity: RuleIdentity = employee) => ({
    tool: { name: 'send', declared_by: 'agent', type: 'function' },
    identity,
    request: { surface: 'openai-chat', model: 'gpt-4o' },
    args,
  });

  it('matches() keeps compiled patterns, however many, and a bad pattern is an error', () => {
    for (let i = 0; i < 300; i++) {
      const condition = compileCondition(`args.to.matches('^user${i}@acme\\\\.com$')`);
      expect(condition.evaluate(vars({ to: `user${i}@acme.com` }))).toBe(true);
      expect(condition.evaluate(vars({ to: `user${i}@evil.com` }))).toBe(false);
    }
    expect(compileCondition("args.to.matches('(')").evaluate(vars({ to: 'x' }))).toBe('error');
  });

  it('binds once for many conditions, and each binding reads its own args', () => {
    const conditions = [
      "args.labels.exists(l, l == 'bug')",
      "args.meta.owner.name == 'ann'",
      "identity.human == 'bob' && request.model == 'gpt-4o'",
    ].map(compileCondition);
    const first = bindConditionVars(vars({ labels: ['bug'], meta: { owner: { name: 'ann' } } }));
    const second = bindConditionVars(vars({ labels: ['ok'], meta: { owner: { name: 'bo' } } }));
    expect(conditions.map((c) => c.evaluateBound(first))).toEqual([true, true, true]);
    expect(conditions.map((c) => c.evaluateBound(second))).toEqual([false, false, true]);
    // The identity's CEL value is kept on the object: an unproven one reads as unproven.
    expect(conditions[2]?.evaluate(vars({}, claimedContractor))).toBe('error');
    expect(JSON.stringify(employee)).not.toContain('cel');
    expect(Object.keys({ ...employee })).toEqual(['human', 'trusted']);
  });
});
