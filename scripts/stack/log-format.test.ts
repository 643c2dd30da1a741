import { describe, expect, it } from 'vitest';
import { createLogFormatter } from './log-format.ts';

describe('createLogFormatter', () => {
  it('folds a request into one line and keeps other fields readable', () => {
    const format = createLogFormatter();
    const incoming = JSON.stringify({
      level: 30,
      time: 1,
      reqId: 'req-1',
      req: { method: 'GET', url: '/readyz' },
      msg: 'incoming request',
    });
    expect(format(incoming)).toBeUndefined();
    const done = { level: 30, reqId: 'req-1', res: { statusCode: 200 }, responseTime: 3.4 };
    expect(format(JSON.stringify({ ...done, msg: 'request completed' }))).toBe(
      'GET /readyz → 200 (3 ms)',
    );
    expect(
      format(
        JSON.stringify({
          level: 40,
          time: 1,
          msg: 'spool full',
          bytes: 10,
          err: { type: 'E', message: 'no room' },
        }),
      ),
    ).toBe('WARN  spool full bytes=10 err="E: no room"');
  });

  it('passes plain text and foreign JSON through', () => {
    const format = createLogFormatter();
    expect(format('Toolgate API listening')).toBe('Toolgate API listening');
    expect(format('{"not":"pino"}')).toBe('{"not":"pino"}');
    expect(format('{broken')).toBe('{broken');
  });
});
