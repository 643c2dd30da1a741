import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

describe('gateway logger', () => {
  it('writes URLs and errors without the credentials in their query strings', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { write: (line: string) => void lines.push(line) });
    const secret = randomBytes(12).toString('hex');
    const key = `${'sk-'}ant-${randomBytes(12).toString('hex')}`;
    log.info({ req: { method: 'GET', url: `/v1/models?api_key=${secret}` } }, 'incoming request');
    log.error({ err: new Error(`upstream GET /v1?key=${secret} refused ${key}`) }, 'failed');
    const output = lines.join('');
    expect(output).not.toContain(secret);
    expect(output).not.toContain(key);
    expect(JSON.parse(lines[0] as string).req.url).toBe('/v1/models?api_key=[REDACTED]');
  });
});
