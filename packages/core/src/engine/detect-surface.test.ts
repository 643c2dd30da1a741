import { describe, expect, it } from 'vitest';
import { detectSurface } from './detect-surface.ts';

describe('detectSurface', () => {
  it.each<[string, unknown, string]>([
    ['a Gemini request', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, 'gemini'],
    ['Gemini tools alone', { tools: [{ functionDeclarations: [{ name: 'a' }] }] }, 'gemini'],
    ['a Gemini built-in alone', { tools: [{ googleSearch: {} }] }, 'gemini'],
    ['a Gemini system instruction', { systemInstruction: { parts: [] } }, 'gemini'],
    ['an Anthropic request', { system: 'x', messages: [] }, 'anthropic-messages'],
    ['Anthropic tools', { tools: [{ name: 'a', input_schema: {} }] }, 'anthropic-messages'],
    ['an OpenAI request', { messages: [], tools: [{ type: 'function' }] }, 'openai-chat'],
    ['anything else', 'text', 'openai-chat'],
  ])('%s', (_what, body, surface) => {
    expect(detectSurface(body)).toBe(surface);
  });
});
