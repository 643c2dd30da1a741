import { describe, expect, it } from 'vitest';
import { outcomeHeadline, reasonText } from './outcome-headline.ts';

describe('outcome headline', () => {
  it('reads "blocked" for a blocked call in a 200 answer, never a green 200', () => {
    const headline = outcomeHeadline({
      calls: [
        { name: 'read_file', state: 'allowed' },
        { name: 'create_pull_request', state: 'blocked', reason: 'hidden' },
      ],
      status: 200,
    });
    expect(headline).toEqual({
      tone: 'bad',
      text: 'blocked: create_pull_request (hidden)',
      short: 'blocked',
    });
  });

  it('reads "withheld … (approval pending)" for a call waiting on a human', () => {
    const headline = outcomeHeadline({
      calls: [{ name: 'send_email', state: 'deferred', reason: 'rule:mail-needs-approval' }],
      status: 200,
    });
    expect(headline).toEqual({
      tone: 'warn',
      text: 'withheld: send_email (approval pending)',
      short: 'withheld',
    });
  });

  it('reads "error <status>" with the error, and combines with blocks', () => {
    expect(outcomeHeadline({ calls: [], status: 502, error: 'upstream timeout' })).toEqual({
      tone: 'bad',
      text: 'error 502 upstream timeout',
      short: 'error 502',
    });
    expect(
      outcomeHeadline({
        calls: [{ name: 'web_search', state: 'blocked', hosted: true }],
        status: 500,
      }).text,
    ).toBe('blocked: web_search · error 500');
  });

  it('reads "ok" when nothing was withheld and the answer was 2xx', () => {
    expect(outcomeHeadline({ calls: [{ name: 'a', state: 'allowed' }], status: 200 })).toEqual({
      tone: 'good',
      text: 'ok',
      short: 'ok',
    });
  });

  it('says reasons as people do', () => {
    expect(reasonText('rule:no-mail')).toBe('rule no-mail');
    expect(reasonText('rule_error:no-mail')).toBe('rule no-mail failed');
    expect(reasonText('not_declared')).toBe('not declared');
    expect(reasonText(undefined)).toBeUndefined();
  });
});
