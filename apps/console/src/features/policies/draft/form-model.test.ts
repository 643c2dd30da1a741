import { describe, expect, it } from 'vitest';
import { applyFormFields, parseLabels, selectorError, toFormFields } from './form-model.ts';
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
    expect(applyFormFields(POLICY, toFormFields(POLICY))).toEqual({
      ...POLICY,
      spec: { ...POLICY.spec, unknownIdentities: 'unverified' },
    });
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

describe('parseDraft', () => {
  it('reports YAML syntax errors with their line', () => {
    const draft = parseDraft('a: [1,\nb: 2');
    expect(draft.ok).toBe(false);
    expect(draft.ok ? '' : draft.error).toMatch(/YAML syntax error/);
  });

  it('rejects a document that is not an object', () => {
    expect(parseDraft('- 1').ok).toBe(false);
  });
});
