import { MediationPolicySpec } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import {
  applyFormFields,
  fieldsForAction,
  parseLabels,
  partsOnlyInYaml,
  RULE_ACTIONS,
  selectorError,
  toFormFields,
} from './form-model.ts';
import { parseDraft } from './policy-draft.ts';

const POLICY = {
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicy',
  metadata: { name: 'p', labels: { team: 'a' } },
  spec: {
    selector: { matchLabels: { env: 'prod' } },
    priority: 5,
    mode: 'patch',
    redact: ['token'],
    rules: [
      { id: 'h', action: 'hide', match: { name: 'x', declared_by: 'mcp' } },
      {
        id: 'r',
        action: 'replace',
        match: { name: 'y' },
        tool: { name: 'y', parameters: { type: 'object' } },
      },
    ],
  },
};

describe('form model', () => {
  it('round-trips without losing what the form does not show', () => {
    // Defaults the YAML leaves out (unknownIdentities) stay out.
    expect(applyFormFields(POLICY, toFormFields(POLICY))).toEqual(POLICY);
  });

  it('writes edited fields back', () => {
    const fields = toFormFields(POLICY);
    const next = applyFormFields(POLICY, {
      ...fields,
      selector: 'env in (prod,staging)',
      rules: [{ ...(fields.rules[0] as (typeof fields.rules)[0]), action: 'rename', alias: 'z' }],
    }) as { spec: { selector: unknown; rules: unknown[] } };
    expect(next.spec.selector).toEqual({
      matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }],
    });
    expect(next.spec.rules).toEqual([
      { id: 'h', action: 'rename', alias: 'z', match: { name: 'x', declared_by: 'mcp' } },
    ]);
  });

  it('parses labels and reports a bad selector', () => {
    expect(parseLabels('a=b, c=')).toEqual({ a: 'b', c: '' });
    expect(selectorError('a in')).toMatch(/invalid label selector/);
    expect(selectorError('a=b')).toBeUndefined();
  });
});

const CALL_TIME = {
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicy',
  metadata: { name: 'calls' },
  spec: {
    selector: {},
    priority: 0,
    mode: 'patch',
    unknownIdentities: 'unverified',
    rules: [
      {
        id: 'pr-only-in-app-repo',
        action: 'deny',
        match: { name: 'create_pull_request' },
        when: "args.repo != 'acme/app'",
        message: 'Pull requests may only be opened in acme/app.',
      },
      {
        id: 'external-mail-needs-approval',
        action: 'require_approval',
        match: { name: 'send_email' },
        when: "!args.to.endsWith('@acme.com')",
        approval: { ttl: '30m' },
      },
      {
        id: 'search-budget',
        action: 'rate_limit',
        match: { name: 'web_search' },
        limit: { calls: 10, per: '1m', by: 'session' },
      },
    ],
  },
};

describe('form model of call-time rules', () => {
  it('offers every action the schema accepts', () => {
    expect(RULE_ACTIONS).toEqual([
      'hide',
      'augment',
      'replace',
      'rename',
      'deny',
      'require_approval',
      'rate_limit',
      'compact',
      'host',
    ]);
  });

  it('round-trips when, message, approval and limit', () => {
    const fields = toFormFields(CALL_TIME);
    expect(fields.rules.map((r) => [r.when, r.message, r.approvalTtl, r.limitCalls])).toEqual([
      ["args.repo != 'acme/app'", 'Pull requests may only be opened in acme/app.', '', ''],
      ["!args.to.endsWith('@acme.com')", '', '30m', ''],
      ['', '', '', '10'],
    ]);
    expect(applyFormFields(CALL_TIME, fields)).toEqual(CALL_TIME);
  });

  it('drops the call-time fields when a rule becomes a request-side one, keeping when', () => {
    const fields = toFormFields(CALL_TIME);
    const rules = fields.rules.map((rule) => fieldsForAction(rule, 'hide'));
    const next = applyFormFields(CALL_TIME, { ...fields, rules }) as {
      spec: { rules: Array<Record<string, unknown>> };
    };
    expect(next.spec.rules.map((r) => Object.keys(r).sort())).toEqual([
      ['action', 'id', 'match', 'when'],
      ['action', 'id', 'match', 'when'],
      ['action', 'id', 'match'],
    ]);
  });

  it('starts a rule switched to rate_limit with a limit the schema accepts', () => {
    const fields = toFormFields(POLICY);
    const rules = [fieldsForAction(fields.rules[0] as (typeof fields.rules)[0], 'rate_limit')];
    const next = applyFormFields(POLICY, { ...fields, rules }) as { spec: unknown };
    const parsed = MediationPolicySpec.safeParse(next.spec);
    expect(parsed.success).toBe(true);
    expect((next.spec as { rules: Array<{ limit: unknown }> }).rules[0]?.limit).toEqual({
      calls: 10,
      per: '1m',
      by: 'identity',
    });
  });

  it('sends calls that are not a number as typed, so the API names limit.calls', () => {
    const fields = toFormFields(CALL_TIME);
    const rules = fields.rules.map((r) =>
      r.action === 'rate_limit' ? { ...r, limitCalls: 'ten' } : r,
    );
    const next = applyFormFields(CALL_TIME, { ...fields, rules }) as { spec: unknown };
    const parsed = MediationPolicySpec.safeParse(next.spec);
    expect(parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'))).toEqual([
      'rules.2.limit.calls',
    ]);
  });
});

describe('parseDraft', () => {
  it('reports YAML syntax errors with their line', () => {
    const draft = parseDraft('a: [1,\nb: 2');
    expect(draft.ok).toBe(false);
    expect(draft.ok ? '' : draft.error).toMatch(/YAML syntax error/);
  });

  it('rejects a document that is not an object', () => {
    expect(parseDraft('- 1').ok).toBe(false);
  });

  it('removing a rule does not give the next one its extra fields', () => {
    const fields = toFormFields(POLICY);
    const next = applyFormFields(POLICY, { ...fields, rules: fields.rules.slice(1) }) as {
      spec: { rules: unknown[] };
    };
    expect(next.spec.rules).toEqual([POLICY.spec.rules[1]]);
  });

  it('shows the action the YAML holds, even one that is no action, and keeps it on edit', () => {
    const odd = {
      ...POLICY,
      spec: { ...POLICY.spec, rules: [{ id: 'q', action: 'quarantine', match: { name: 7 } }] },
    };
    const fields = toFormFields(odd);
    expect(fields.rules[0]?.action).toBe('quarantine');
    // Editing another field leaves the rule's unshown values as they are.
    const next = applyFormFields(odd, { ...fields, priority: '9' }) as {
      spec: Record<string, unknown>;
    };
    expect(next.spec.rules).toEqual(odd.spec.rules);
    expect(next.spec.priority).toBe(9);
    const renamed = applyFormFields(odd, {
      ...fields,
      rules: [{ ...(fields.rules[0] as (typeof fields.rules)[0]), id: 'q2' }],
    }) as { spec: { rules: unknown[] } };
    expect(renamed.spec.rules).toEqual([{ id: 'q2', action: 'quarantine', match: { name: 7 } }]);
  });

  it('names what only the YAML can edit', () => {
    expect(partsOnlyInYaml(POLICY)).toEqual([
      '`redact`',
      'rule 1 (h): `match.declared_by`',
      'rule 2 (r): `tool`',
    ]);
  });
});
