import { issuesToCauses, MediationPolicySpec } from '@toolgate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { rangeOfCause } from './yaml-positions.ts';

/**
 * A `when:` error says `line:col` of the expression; the editor has to underline that token in
 * the YAML text, whatever quoting, escaping or folding the value is written with. The messages
 * here are the core schema's own, turned into causes as the API does.
 */
const FIELD = 'spec.rules[1].when';

function compileError(expression: string): string {
  const result = MediationPolicySpec.safeParse({
    rules: [
      { id: 'first', action: 'hide', match: { name: 'a' } },
      { id: 'second', action: 'deny', match: { name: 'b' }, when: expression },
    ],
  });
  const cause = result.success
    ? undefined
    : issuesToCauses(result.error.issues, ['spec']).find((c) => c.field === FIELD);
  if (!cause) throw new Error(`expected ${JSON.stringify(expression)} not to compile`);
  return cause.message;
}

function policyWithWhen(when: string, style = ''): string {
  return `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: p
spec:
  rules:
    - id: first
      action: hide
      match: { name: a }
    - id: second
      action: deny
      match:
        name: create_pull_request
      when: ${style}${when}
      message: no
`;
}

function underlined(text: string, expression: string): { token: string; line: string } {
  const { from, to } = rangeOfCause(text, { field: FIELD, message: compileError(expression) });
  const lineStart = text.lastIndexOf('\n', from - 1) + 1;
  const lineEnd = text.indexOf('\n', from);
  return { token: text.slice(from, to), line: text.slice(lineStart, lineEnd) };
}

describe('rangeOfCause for a when: error', () => {
  it.each<[string, string, string, string]>([
    ['plain', '', "args.repo != 'acme/app' && foo", 'foo'],
    ['single-quoted', '', `'tool.name == ''x'' && bogus(1)'`, 'bogus'],
    ['double-quoted with escapes', '', String.raw`"tool.name == \"a\tb\" || foo"`, 'foo'],
    ['double-quoted \\u escape', '', String.raw`"'\u00e9' == tool.name || foo"`, 'foo'],
    ['an undefined field', '', 'tool.nme == "x"', '.nme'],
  ])('%s', (_, style, yamlValue, token) => {
    const text = policyWithWhen(yamlValue, style);
    const result = underlined(text, parseValue(text));
    expect(result.token).toBe(token);
    expect(result.line).toContain('when:');
  });

  it('points at the right line of a multi-line block scalar', () => {
    const text = policyWithWhen(
      `|\n        tool.name == 'a' &&\n        args.x > 1 &&\n        undeclared`,
    );
    const result = underlined(text, parseValue(text));
    expect(result.token).toBe('undeclared');
    expect(result.line.trim()).toBe('undeclared');
  });

  it('points into a folded plain scalar that spans lines', () => {
    const text = policyWithWhen(`tool.name == 'a'\n        && foo`);
    const result = underlined(text, parseValue(text));
    expect(result.token).toBe('foo');
    expect(result.line.trim()).toBe('&& foo');
  });

  it('falls back to the whole value when the position is not in it', () => {
    const text = policyWithWhen('tool.name == "a"');
    const { from, to } = rangeOfCause(text, { field: FIELD, message: '9:1: no such line' });
    expect(text.slice(from, to)).toBe('tool.name == "a"');
  });

  it('leaves a message without a position at its field', () => {
    const text = policyWithWhen('tool.name == "a"');
    const { from, to } = rangeOfCause(text, { field: FIELD, message: 'must not be empty' });
    expect(text.slice(from, to)).toBe('tool.name == "a"');
  });

  const STYLES = [
    'PLAIN',
    'QUOTE_SINGLE',
    'QUOTE_DOUBLE',
    'BLOCK_LITERAL',
    'BLOCK_FOLDED',
  ] as const;

  it('underlines the undeclared name in any YAML spelling of any expression', () => {
    // A string literal of arbitrary text (quotes, escapes, unicode, line breaks) before the
    // mistake, written by the yaml library in every scalar style and at narrow line widths.
    const literal = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .filter((s) => !s.includes('f') && !s.includes('\r'));
    fc.assert(
      fc.property(
        literal,
        fc.constantFrom(...STYLES),
        fc.integer({ min: 20, max: 80 }),
        fc.constantFrom(' || ', '\n  || ', ' ||\n\n  '),
        (s, style, lineWidth, join) => {
          const expression = `tool.name == ${JSON.stringify(s)}${join}foo`;
          const yamlText = stringify(
            { spec: { rules: [{ id: 'a' }, { id: 'b', when: expression }] } },
            { defaultStringType: style, defaultKeyType: 'PLAIN', lineWidth },
          );
          // The API compiles what the YAML parses to, which need not be what was written.
          const parsed = (parse(yamlText) as { spec: { rules: Array<{ when: string }> } }).spec
            .rules[1]?.when as string;
          const { from, to } = rangeOfCause(yamlText, {
            field: FIELD,
            message: compileError(parsed),
          });
          expect(yamlText.slice(from, to)).toBe('foo');
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** The expression as the API reads it: the parsed `when` value. */
function parseValue(text: string): string {
  return (parse(text) as { spec: { rules: Array<{ when: string }> } }).spec.rules[1]?.when ?? '';
}
