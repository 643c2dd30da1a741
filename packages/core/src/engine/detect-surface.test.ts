import { describe, expect, it } from 'vitest';
import type { Surface } from '../resources/vocabulary.ts';
import { detectSurface } from './detect-surface.ts';

describe('detectSurface', () => {
  it.each<[string, unknown, Surface]>([
    ['not an object', 'hi', 'openai-chat'],
    ['a Gemini request', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, 'gemini'],
    ['Gemini tools alone', { tools: [{ functionDeclarations: [{ name: 'a' }] }] }, 'gemini'],
    ['a Gemini built-in alone', { tools: [{ googleSearch: {} }] }, 'gemini'],
    ['a Gemini system instruction', { systemInstruction: { parts: [] } }, 'gemini'],
    [
      'Chat Completions',
      { model: 'm', messages: [], tools: [{ type: 'function', function: { name: 'a' } }] },
      'openai-chat',
    ],
    [
      'Chat Completions without tools',
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      'openai-chat',
    ],
    ['Anthropic (system)', { model: 'm', system: 'x', messages: [] }, 'anthropic-messages'],
    [
      'Anthropic (input_schema)',
      { model: 'm', messages: [], tools: [{ name: 'a', input_schema: {} }] },
      'anthropic-messages',
    ],
    [
      'Anthropic (server tool)',
      { model: 'm', messages: [], tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
      'anthropic-messages',
    ],
    ['Responses (string input)', { model: 'm', input: 'hi' }, 'openai-responses'],
    [
      'Responses (instructions only)',
      { model: 'm', instructions: 'Be brief.' },
      'openai-responses',
    ],
    [
      'Responses (flat function tools)',
      { model: 'm', tools: [{ type: 'function', name: 'a', parameters: {} }] },
      'openai-responses',
    ],
    [
      'Responses (hosted tools)',
      { model: 'm', tools: [{ type: 'web_search' }] },
      'openai-responses',
    ],
    ['messages win over input', { model: 'm', messages: [], input: 'x' }, 'openai-chat'],
  ])('%s', (_label, body, surface) => {
    expect(detectSurface(body)).toBe(surface);
  });
});
