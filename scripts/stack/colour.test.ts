import { describe, expect, it } from 'vitest';
import { serviceLabel, shouldColour } from './colour.ts';

const TTY = { isTTY: true };
const FILE = { isTTY: false };
const PIPE = {};

describe('shouldColour', () => {
  it.each([
    ['a terminal', TTY, {}, true],
    ['a file', FILE, {}, false],
    ['a pipe', PIPE, {}, false],
    ['a terminal with NO_COLOR', TTY, { NO_COLOR: '1' }, false],
    ['a terminal with an empty NO_COLOR (unset, per no-color.org)', TTY, { NO_COLOR: '' }, true],
    ['a terminal with TERM=dumb', TTY, { TERM: 'dumb' }, false],
    ['a file with FORCE_COLOR=1', FILE, { FORCE_COLOR: '1' }, true],
    ['a pipe with an empty FORCE_COLOR', PIPE, { FORCE_COLOR: '' }, true],
    ['a terminal with FORCE_COLOR=0', TTY, { FORCE_COLOR: '0' }, false],
    ['a terminal with FORCE_COLOR=false', TTY, { FORCE_COLOR: 'false' }, false],
    [
      'a file with FORCE_COLOR and NO_COLOR (FORCE_COLOR first, as Node)',
      FILE,
      { FORCE_COLOR: '1', NO_COLOR: '1' },
      true,
    ],
  ])('%s → %s', (_case, stream, env, expected) => {
    expect(shouldColour(stream, env)).toBe(expected);
  });
});

describe('serviceLabel', () => {
  it('is plain text without colour, and wrapped in one colour and a reset with it', () => {
    expect(serviceLabel('gateway', false)).toBe('gateway | ');
    expect(serviceLabel('gateway', false)).not.toContain('\u001b');
    expect(serviceLabel('api', true)).toBe('\u001b[36mapi     |\u001b[0m ');
  });
});
