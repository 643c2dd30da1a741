import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redactLogLine, redactSecrets } from './log-redaction.ts';
import { SECRET_PARAMETER_NAME, scrubSecrets } from './secrets.ts';

/** Fake credentials, built at run time so that no secret-shaped literal sits in the repository. */
const random = () => randomBytes(12).toString('hex');
const OPENAI_KEY = `${'sk-'}proj-${random()}`;
const TOOLGATE_TOKEN = `${'tg_'}${random()}`;
const OPAQUE = random();

describe('redactSecrets on URLs', () => {
  it.each([
    [`/v1/receipts?token=${OPAQUE}`, OPAQUE],
    [`/v1/receipts?limit=5&api_key=${OPAQUE}&x=1`, OPAQUE],
    [`/v1/receipts?access_token=${OPAQUE}`, OPAQUE],
    [`/v1/receipts?key=${OPAQUE}`, OPAQUE],
    [`/v1/receipts?apiKey=${OPAQUE}`, OPAQUE],
    [`/v1/receipts?X-Amz-Signature=${OPAQUE}`, OPAQUE],
    [`/v1/receipts?client_secret=${OPAQUE}#frag`, OPAQUE],
    [`/v1/receipts?q=${OPENAI_KEY}`, OPENAI_KEY],
    [`/v1/receipts?q=${encodeURIComponent(OPENAI_KEY)}`, OPENAI_KEY],
    [`/v1/receipts?identity=${TOOLGATE_TOKEN}`, TOOLGATE_TOKEN],
    [`/v1/receipts?h=${encodeURIComponent(`Bearer ${OPAQUE}`)}`, OPAQUE],
    [`/v1/receipts?h=Bearer+${OPAQUE}`, OPAQUE],
    [`/v1/receipts?${OPENAI_KEY}`, OPENAI_KEY],
    [`Cannot GET /x?token=${OPAQUE} (not found)`, OPAQUE],
  ])('%s', (url, secret) => {
    const redacted = redactSecrets(url);
    expect(redacted).not.toContain(secret);
    expect(redacted).not.toContain(secret.slice(-12));
    expect(redacted).toContain('[REDACTED]');
  });

  it('keeps what is not a credential, byte for byte', () => {
    for (const url of [
      '/apis/toolgate.dev/v1/mediationpolicies?limit=5&labelSelector=env%3Dprod&watch=true',
      '/v1/search?monkey=banana&keyword=shoes&max_tokens=100',
      '/healthz',
      'is this a question? yes',
      '/x?bad=%E0%A4%A',
    ]) {
      expect(redactSecrets(url)).toBe(url);
    }
  });

  it('names credentials by their whole name or its last part', () => {
    for (const name of ['token', 'api_key', 'api-key', 'apikey', 'accessToken', 'id_token', 'sig'])
      expect(SECRET_PARAMETER_NAME.test(name), name).toBe(true);
    for (const name of ['monkey', 'keyword', 'tokens', 'max_tokens', 'limit', 'continue'])
      expect(SECRET_PARAMETER_NAME.test(name), name).toBe(false);
  });

  it('scrubSecrets finds query credentials in running text too', () => {
    expect(scrubSecrets(`GET /x?a=1&token=${OPAQUE} 404`)).toBe('GET /x?a=1&token=[REDACTED] 404');
  });
});

describe('redactLogLine', () => {
  it('redacts every string of a JSON line, which stays JSON', () => {
    const record = {
      level: 30,
      req: { method: 'GET', url: `/x?token=${OPAQUE}&q=ok`, note: 'say "hi"\n' },
      err: { message: `upstream refused ${OPENAI_KEY}`, [`password=${OPAQUE}`]: 1 },
      msg: 'request completed',
    };
    const line = `${JSON.stringify(record)}\n`;
    const redacted = redactLogLine(line);
    expect(redacted.endsWith('\n')).toBe(true);
    expect(redacted).not.toContain(OPAQUE);
    expect(redacted).not.toContain(OPENAI_KEY);
    const parsed = JSON.parse(redacted);
    expect(parsed.req.url).toBe('/x?token=[REDACTED]&q=ok');
    expect(parsed.req.note).toBe('say "hi"\n');
    expect(parsed.msg).toBe('request completed');
  });

  it('returns a line with nothing to redact as it is', () => {
    const line = '{"level":30,"req":{"url":"/healthz"},"msg":"incoming request"}\n';
    expect(redactLogLine(line)).toBe(line);
  });

  it('redacts a line that is not JSON as text', () => {
    expect(redactLogLine(`plain /x?token=${OPAQUE}`)).toBe('plain /x?token=[REDACTED]');
  });
});
