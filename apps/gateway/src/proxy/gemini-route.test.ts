import { describe, expect, it } from 'vitest';
import { isGeminiPath, readGeminiRoute } from './gemini-route.ts';

describe('readGeminiRoute', () => {
  it('reads the model, the stream flag and the key, and rebuilds the upstream path', () => {
    expect(readGeminiRoute('/v1beta/models/gemini-2.5-flash:generateContent')).toEqual({
      ok: true,
      route: {
        model: 'gemini-2.5-flash',
        stream: false,
        upstreamPath: '/v1beta/models/gemini-2.5-flash:generateContent',
      },
    });
    expect(
      readGeminiRoute('/v1/models/gemini-2.0-flash-001:streamGenerateContent?key=k1&alt=sse&x=1'),
    ).toEqual({
      ok: true,
      route: {
        model: 'gemini-2.0-flash-001',
        stream: true,
        // Only alt=sse goes on; the key leaves the URL, other parameters are dropped.
        upstreamPath: '/v1/models/gemini-2.0-flash-001:streamGenerateContent?alt=sse',
        apiKey: 'k1',
      },
    });
  });

  it.each([
    ['/v1beta/models/gemini:countTokens', 404],
    ['/v1beta/models/gemini:embedContent', 404],
    ['/v1beta/models/gemini', 404],
    ['/v1beta/models/a/b:generateContent', 404],
    ['/v2/models/gemini:generateContent', 404],
    ['/v1beta/models/a%2Fb:generateContent', 400],
    ['/v1beta/models/..:generateContent', 400],
    ['/v1beta/models/-x:generateContent', 400],
    ['/v1beta/models/:generateContent', 400],
    [`/v1beta/models/${'m'.repeat(129)}:generateContent`, 400],
    ['/v1beta/models/gemini:streamGenerateContent', 400],
    ['/v1beta/models/gemini:streamGenerateContent?alt=json', 400],
    ['/v1beta/models/gemini:streamGenerateContent?alt=sse&alt=sse', 400],
    ['/v1beta/models/gemini:generateContent?alt=sse', 400],
    ['/v1beta/models/gemini:generateContent?key=a&key=b', 400],
  ])('refuses %s with %i, quoting none of the URL', (url, status) => {
    const read = readGeminiRoute(url);
    expect(read).toMatchObject({ ok: false, status });
    if (!read.ok) expect(read.message).not.toContain('key=');
  });

  it('knows the paths the Gemini surface owns', () => {
    expect(isGeminiPath('/v1beta/models/x:generateContent')).toBe(true);
    expect(isGeminiPath('/v1/models/x:countTokens')).toBe(true);
    expect(isGeminiPath('/v1/chat/completions')).toBe(false);
    expect(isGeminiPath('/v1/models')).toBe(false);
  });
});
