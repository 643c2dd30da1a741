import { describe, expect, it } from 'vitest';
import { scrubSecrets } from './secrets.ts';

const FAKE_ANTHROPIC = `sk-ant-api03-${'FAKE'.repeat(4)}`;
const FAKE_AWS = `AKIA${'FAKE'.repeat(4)}`;
const FAKE_GITHUB = `ghp_${'Fake0'.repeat(8)}`;
const FAKE_GITHUB_PAT = `github_pat_${'Fake_0'.repeat(6)}`;
const FAKE_SLACK = `xoxb-${'1234'.repeat(3)}-fakefake`;
const FAKE_GOOGLE = `AIza${'Fake0-_'.repeat(5)}`;

describe('scrubSecrets', () => {
  it.each([
    ['upstream said: invalid key sk-proj-FAKEFAKEFAKE1234567890', 'sk-proj-FAKEFAKEFAKE1234567890'],
    // Built by concatenation so secret scanners do not flag the repository for test values.
    [`key ${FAKE_ANTHROPIC}`, FAKE_ANTHROPIC],
    ['Authorization: Bearer abcdefghijklmnop.qrs', 'abcdefghijklmnop.qrs'],
    ['{"x-api-key":"fake-anthropic-key-123"}', 'fake-anthropic-key-123'],
    ['api_key=notarealkey999', 'notarealkey999'],
    ['token tg_FAKEFAKEFAKEFAKEFAKE0123', 'tg_FAKEFAKEFAKEFAKEFAKE0123'],
    [`aws ${FAKE_AWS}`, FAKE_AWS],
    [`Bad credentials: ${FAKE_GITHUB}`, FAKE_GITHUB],
    [`pat ${FAKE_GITHUB_PAT}`, FAKE_GITHUB_PAT],
    [`invalid_auth (${FAKE_SLACK})`, FAKE_SLACK],
    [`key=${FAKE_GOOGLE} rejected`, FAKE_GOOGLE],
    ['{"password": "not-a-real-pw-1"}', 'not-a-real-pw-1'],
  ])('removes the secret from %j', (text, secret) => {
    const scrubbed = scrubSecrets(text);
    expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain('[REDACTED]');
  });

  it('leaves ordinary text alone', () => {
    const text = 'rate limited: retry after 20s (request req_123)';
    expect(scrubSecrets(text)).toBe(text);
  });
});
