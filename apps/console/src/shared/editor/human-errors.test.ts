import { issuesToCauses, MediationPolicyInput } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { humanCause, humanMessage } from './human-errors.ts';

const policy = (spec: unknown, name = 'p') => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicy',
  metadata: { name },
  spec,
});

/** What the API would answer for `body`, in words: the core schema decides, as in the API. */
function sentences(body: unknown): string[] {
  const parsed = MediationPolicyInput.safeParse(body);
  if (parsed.success) return [];
  return issuesToCauses(parsed.error.issues).map(humanCause);
}

describe('humanCause: validation errors in words, not zod text', () => {
  it.each([
    [
      {
        rules: [
          { id: 'a', action: 'hide', match: { name: 'x' } },
          { id: 'b', action: 'hide' },
        ],
      },
      'rule 2: `match` is required',
    ],
    [{ rules: [], priority: 'x' }, '`spec.priority` must be a number, not a string'],
    [{ rules: [], mode: 'nope' }, '`spec.mode` must be one of observe, patch, mutate, execute'],
    [
      { rules: [{ id: 'a', action: 'quarantine', match: { name: 'x' } }] },
      'rule 1: `action` must be one of hide, augment, replace, rename, deny, require_approval, rate_limit, compact, host',
    ],
    [{ rules: [], foo: 1 }, '`spec` has a field it does not know: `foo`'],
    [
      { rules: [{ id: 'a', action: 'hide', match: { name: 'x', bar: 1 } }] },
      'rule 1: `match` has a field it does not know: `bar`',
    ],
    [{ rules: [], priority: 99999999 }, '`spec.priority` must be at most 1000000'],
    [
      {
        rules: [
          { id: 'r', action: 'rate_limit', match: { name: 'y' }, limit: { calls: 'x', per: '1m' } },
        ],
      },
      'rule 1: `limit.calls` must be a number, not a string',
    ],
  ])('%j', (spec, expected) => {
    expect(sentences(policy(spec))).toContain(expected);
  });

  it('keeps messages that are already sentences', () => {
    expect(humanMessage('must name at least one selector')).toBe('must name at least one selector');
    expect(
      humanCause({ field: 'spec.rules[0].when', message: "1:3: undeclared reference 'x'" }),
    ).toBe("rule 1: `when` 1:3: undeclared reference 'x'");
  });
});
