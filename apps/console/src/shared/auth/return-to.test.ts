import { describe, expect, it } from 'vitest';
import { safeReturnPath, signInPath } from './return-to.ts';

describe('safeReturnPath', () => {
  it.each([
    ['/receipts?tool=create_pull_request&since=2026-01-01T00%3A00%3A00Z', undefined],
    ['/policies/guardrails?tab=history#rule-2', undefined],
    ['/', undefined],
  ])('keeps a same-origin path with its query string and fragment: %s', (path) => {
    expect(safeReturnPath(path)).toBe(path);
  });

  it.each([
    'https://evil.example/receipts',
    '//evil.example/receipts',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'receipts',
    '/receipts\n',
    '/sign-in',
    '/sign-in?next=/sign-in',
    '',
    `/${'a'.repeat(5000)}`,
  ])('refuses %j', (path) => {
    expect(safeReturnPath(path)).toBeUndefined();
  });

  it('normalises dot segments instead of following them elsewhere', () => {
    expect(safeReturnPath('/policies/../receipts?x=1')).toBe('/receipts?x=1');
  });
});

describe('signInPath', () => {
  it('carries the page and the reason in its own query string', () => {
    const path = signInPath('/receipts?tool=a&outcome=blocked', 'expired');
    const url = new URL(path, 'https://console.invalid');
    expect(url.pathname).toBe('/sign-in');
    expect(url.searchParams.get('next')).toBe('/receipts?tool=a&outcome=blocked');
    expect(url.searchParams.get('reason')).toBe('expired');
  });

  it('leaves out the landing page and anything unsafe', () => {
    expect(signInPath('/')).toBe('/sign-in');
    expect(signInPath('//evil.example')).toBe('/sign-in');
    expect(signInPath(undefined)).toBe('/sign-in');
  });
});
