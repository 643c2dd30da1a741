import { describe, expect, it } from 'vitest';
import { providerError, sanitizeProviderError } from './provider-error.ts';

const CANARY = 'LEAK-CANARY';
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'delete_repo', input: { why: CANARY } };

describe('sanitizeProviderError', () => {
  it('passes a clean error on byte for byte', () => {
    const openai =
      '{"error": {"message": "Rate limit", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}';
    const anthropic =
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}';
    expect(sanitizeProviderError('openai-chat', 429, openai)).toBe(openai);
    expect(sanitizeProviderError('anthropic-messages', 529, anthropic)).toBe(anthropic);
  });

  it('keeps only the OpenAI error object', () => {
    const body = JSON.stringify({
      error: {
        message: 'bad',
        type: 'invalid_request_error',
        param: 'tools',
        code: null,
        extra: toolUse,
      },
      choices: [
        { message: { tool_calls: [{ function: { name: 'delete_repo', arguments: CANARY } }] } },
      ],
    });
    const out = sanitizeProviderError('openai-chat', 400, body);
    expect(out).not.toContain(CANARY);
    expect(JSON.parse(out)).toEqual({
      error: { message: 'bad', type: 'invalid_request_error', param: 'tools', code: null },
    });
  });

  it('keeps only the Anthropic error object, with its flat details', () => {
    const body = JSON.stringify({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'thread',
        details: {
          error_code: 'thread_unsupported_request',
          unsupported: ['thinking'],
          block: toolUse,
          list: [toolUse],
        },
      },
      content: [toolUse],
    });
    const out = sanitizeProviderError('anthropic-messages', 400, body);
    expect(out).not.toContain(CANARY);
    expect(JSON.parse(out)).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'thread',
        details: { error_code: 'thread_unsupported_request', unsupported: ['thinking'] },
      },
    });
  });

  it('turns a body that is no provider error into one, scrubbed and bounded', () => {
    const key = ['sk', 'proj', 'A1b2C3d4E5f6G7h8'].join('-');
    const html = `<html>bad gateway ${key} ${'x'.repeat(5000)}</html>`;
    const out = JSON.parse(sanitizeProviderError('openai-chat', 502, html));
    expect(out.error.type).toBe('api_error');
    expect(out.error.message).not.toContain(key);
    expect(out.error.message.length).toBeLessThanOrEqual(2001);
    const empty = JSON.parse(sanitizeProviderError('anthropic-messages', 404, ''));
    expect(empty).toEqual(providerError('anthropic-messages', 404, 'HTTP 404'));
  });

  it('scrubs secrets and lone surrogates from the message', () => {
    const key = ['sk', 'ant', 'api03', 'Zz9Yy8Xx7Ww6'].join('-');
    const body = JSON.stringify({
      error: { message: `Invalid key ${key} \ud800`, type: 'authentication_error' },
    });
    const out = sanitizeProviderError('openai-chat', 401, body);
    expect(out).not.toContain(key);
    expect(JSON.parse(out).error.message).toBe('Invalid key [REDACTED] \ufffd');
  });
});

describe('Gemini errors', () => {
  it('are Google’s {error: {code, message, status}}, the status canonical for the code', () => {
    expect(
      providerError('gemini', 400, 'tools[0].functionDeclarations[2].name: is required'),
    ).toEqual({
      error: {
        code: 400,
        message: 'tools[0].functionDeclarations[2].name: is required',
        status: 'INVALID_ARGUMENT',
      },
    });
    const statuses = [401, 403, 404, 413, 429, 499, 500, 502, 503, 504].map(
      (code) => (providerError('gemini', code, 'x').error as { status: string }).status,
    );
    expect(statuses).toEqual([
      'UNAUTHENTICATED',
      'PERMISSION_DENIED',
      'NOT_FOUND',
      'INVALID_ARGUMENT',
      'RESOURCE_EXHAUSTED',
      'CANCELLED',
      'INTERNAL',
      'UNAVAILABLE',
      'UNAVAILABLE',
      'DEADLINE_EXCEEDED',
    ]);
  });

  it('pass on clean, and lose everything but code, message and status otherwise', () => {
    const clean = '{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}';
    expect(sanitizeProviderError('gemini', 429, clean)).toBe(clean);
    const key = `AIza${'Sy0123456789abcdefghijklmnopqrstuvw'}`;
    const body = JSON.stringify({
      error: {
        code: 400,
        message: `API key not valid: ${key}`,
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', metadata: { CANARY } }],
      },
      candidates: [
        { content: { parts: [{ functionCall: { name: 'delete_repo', args: CANARY } }] } },
      ],
    });
    const out = sanitizeProviderError('gemini', 400, body);
    expect(out).not.toContain(CANARY);
    expect(out).not.toContain(key);
    expect(JSON.parse(out)).toEqual({
      error: { code: 400, message: 'API key not valid: [REDACTED]', status: 'INVALID_ARGUMENT' },
    });
  });
});
