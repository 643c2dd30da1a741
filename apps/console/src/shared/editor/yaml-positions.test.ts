import { describe, expect, it } from 'vitest';
import { parseFieldPath, rangeOfField } from './yaml-positions.ts';

const TEXT = `metadata:
  name: p
spec:
  rules:
    - id: a
      action: rename
      alias: "bad alias"
`;

describe('parseFieldPath', () => {
  it.each<[string, Array<string | number>]>([
    ['spec.rules[2].match.name', ['spec', 'rules', 2, 'match', 'name']],
    ['metadata.name', ['metadata', 'name']],
    ['spec', ['spec']],
    ['spec.rules[0]', ['spec', 'rules', 0]],
  ])('%s', (field, path) => {
    expect(parseFieldPath(field)).toEqual(path);
  });
});

describe('rangeOfField', () => {
  it('points at the value of an existing field', () => {
    const { from, to } = rangeOfField(TEXT, 'spec.rules[0].alias');
    expect(TEXT.slice(from, to)).toBe('"bad alias"');
  });

  it('falls back to the deepest existing parent, first line only', () => {
    const { from, to } = rangeOfField(TEXT, 'spec.rules[0].match.name');
    expect(TEXT.slice(from, to)).toBe('id: a');
  });

  it('falls back to the first line when nothing of the path exists', () => {
    const { from, to } = rangeOfField(TEXT, 'status.conditions');
    expect(TEXT.slice(from, to)).toBe('metadata:');
  });
});
