import { describe, expect, it } from 'vitest';
import { headersOf, ProviderCall, UpstreamBody } from './upstream-answer.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('UpstreamBody', () => {
  it('keeps chunks that arrive before it is consumed, then streams the rest in order', async () => {
    const body = new UpstreamBody(
      () => {},
      () => {},
    );
    // 'é' split between two chunks: decoded only once whole.
    expect(body.push(bytes('é').subarray(0, 1))).toBe(true);
    expect(body.push(Buffer.concat([bytes('é').subarray(1), bytes(' and ')]))).toBe(true);
    const text = body.text();
    body.push(bytes('more'));
    body.finish();
    await expect(text).resolves.toBe('é and more');
  });

  it('passes a sink’s wish to pause on to the parser, and resumes it', () => {
    let resumed = 0;
    const body = new UpstreamBody(
      () => resumed++,
      () => {},
    );
    const seen: string[] = [];
    body.consume({
      data: (chunk) => seen.push(chunk.toString()) < 2,
      end: () => {},
      error: () => {},
    });
    expect(body.push(bytes('a'))).toBe(true);
    expect(body.push(bytes('b'))).toBe(false);
    body.resume();
    expect(resumed).toBe(1);
    expect(seen).toEqual(['a', 'b']);
  });

  it('reports a failure once, never after the end, and is consumed once', async () => {
    const aborted: Error[] = [];
    const body = new UpstreamBody(
      () => {},
      (reason) => aborted.push(reason),
    );
    const text = body.text();
    body.push(bytes('partial'));
    body.fail(new Error('socket closed'));
    body.fail(new Error('again'));
    await expect(text).rejects.toThrow('socket closed');
    expect(() => body.consume({ data: () => true, end: () => {}, error: () => {} })).toThrow(
      /consumed once/,
    );
    body.destroy(new Error('stop'));
    expect(aborted.map((e) => e.message)).toEqual(['stop']);

    const ended = new UpstreamBody(
      () => {},
      () => {},
    );
    ended.finish();
    ended.fail(new Error('late'));
    await expect(ended.text()).resolves.toBe('');
  });
});

describe('ProviderCall', () => {
  it('answers once the final headers arrive, its body streaming after', async () => {
    const call = new ProviderCall();
    call.onConnect(() => {});
    expect(call.onHeaders(100, [], () => {})).toBe(true);
    call.onHeaders(200, [bytes('Content-Type'), bytes('text/plain')], () => {});
    call.onData(bytes('hello'));
    call.onComplete();
    const answer = await call.answer;
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toEqual({ 'content-type': 'text/plain' });
    await expect(answer.body.text()).resolves.toBe('hello');
  });

  it('rejects when the call fails before its headers, fails the body after', async () => {
    const early = new ProviderCall();
    early.onError(new Error('connect ECONNREFUSED'));
    await expect(early.answer).rejects.toThrow('ECONNREFUSED');

    const late = new ProviderCall();
    late.onHeaders(200, [], () => {});
    const { body } = await late.answer;
    const text = body.text();
    late.onError(new Error('socket hang up'));
    await expect(text).rejects.toThrow('socket hang up');
  });

  it('aborts the call when asked, before or after it is connected', () => {
    const reasons: string[] = [];
    const before = new ProviderCall();
    before.abort();
    expect(before.aborted).toBe(true);
    before.onConnect((reason) => reasons.push(reason.name));
    const after = new ProviderCall();
    after.onConnect((reason) => reasons.push(reason.name));
    expect(after.aborted).toBe(false);
    after.abort();
    after.abort();
    expect(reasons).toEqual(['AbortError', 'AbortError']);
  });
});

describe('headersOf', () => {
  it('lower-cases names and keeps every value of a repeated header', () => {
    expect(
      headersOf([
        bytes('Content-Type'),
        bytes('text/event-stream'),
        bytes('X-RateLimit-Remaining'),
        bytes('9'),
        bytes('set-cookie'),
        bytes('a=1'),
        bytes('Set-Cookie'),
        bytes('b=2'),
      ]),
    ).toEqual({
      'content-type': 'text/event-stream',
      'x-ratelimit-remaining': '9',
      'set-cookie': ['a=1', 'b=2'],
    });
    expect(headersOf(null)).toEqual({});
  });
});
