import { describe, expect, it } from 'vitest';
import { classLink, rangeLink, ruleLink, toolLink } from './receipt-links.ts';

const FROM = '2026-03-01T10:00:00.000Z';
const TO = '2026-03-01T11:00:00.000Z';
const params = (href: string) => Object.fromEntries(new URL(href, 'http://x').searchParams);

describe('links from the overview into the receipts list', () => {
  it("use the list's own filters for the range [from, to)", () => {
    expect(params(rangeLink(FROM, TO))).toEqual({ since: FROM, until: TO });
    expect(params(classLink('blocked', FROM, TO)).outcome).toBe('blocked');
    expect(params(toolLink('read_file', FROM, TO)).tool).toBe('read_file');
    expect(params(ruleLink('guardrails/no-deletes', FROM, TO)).rule).toBe('guardrails/no-deletes');
  });

  it('send a reason without a rule to the blocked receipts, and a class to its outcome filter', () => {
    const hidden = params(ruleLink('hidden', FROM, TO));
    expect(hidden.outcome).toBe('blocked');
    expect(hidden.rule).toBeUndefined();
    expect(params(classLink('withheld', FROM, TO))).toMatchObject({
      outcome: 'withheld',
      since: FROM,
      until: TO,
    });
  });
});
