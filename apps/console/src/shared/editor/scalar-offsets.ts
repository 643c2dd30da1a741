import type { Scalar } from 'yaml';

/**
 * Where each character of a YAML string scalar's value sits in the YAML text. A message about a
 * position inside a value (a CEL `when:` error says `line:col` of the expression) has to be
 * placed in the text, and the value is not the text: quotes, `''` and `\` escapes, folded line
 * breaks and block indentation all sit between them. The `yaml` library keeps only the node's
 * range, so the value is decoded again here, keeping each character's offset.
 *
 * Returns `value.length + 1` offsets (the last one is where the value ends), or undefined for a
 * scalar this decoder does not handle (an explicit block indentation indicator, CRLF text).
 * Callers compare the decoded value with the parsed one before trusting the offsets.
 */
export function scalarOffsets(
  text: string,
  node: Scalar,
): { value: string; offsets: number[] } | undefined {
  const range = node.range;
  if (!range) return undefined;
  const [start, end] = range;
  if (text.slice(start, end).includes('\r')) return undefined;
  switch (node.type) {
    case 'PLAIN':
      return flowOffsets(text, start, end, 'plain');
    case 'QUOTE_SINGLE':
      return flowOffsets(text, start + 1, end - 1, 'single');
    case 'QUOTE_DOUBLE':
      return flowOffsets(text, start + 1, end - 1, 'double');
    case 'BLOCK_LITERAL':
    case 'BLOCK_FOLDED':
      return blockOffsets(text, start, end, node.type === 'BLOCK_FOLDED');
    default:
      return undefined;
  }
}

class Decoded {
  value = '';
  offsets: number[] = [];
  /** Whether each character came from literal white space (trimmed before a line fold). */
  private literalSpace: boolean[] = [];

  push(chars: string, offset: number, literalSpace = false): void {
    for (const char of chars) {
      // A character outside the BMP is two UTF-16 units, like the CEL column counts them.
      for (let unit = 0; unit < char.length; unit++) {
        this.value += char[unit];
        this.offsets.push(offset);
        this.literalSpace.push(literalSpace);
      }
    }
  }

  trimTrailingSpace(): void {
    while (this.literalSpace.at(-1)) {
      this.value = this.value.slice(0, -1);
      this.offsets.pop();
      this.literalSpace.pop();
    }
  }

  done(end: number): { value: string; offsets: number[] } {
    return { value: this.value, offsets: [...this.offsets, end] };
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_ESCAPES: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/** Plain and quoted scalars: line breaks fold to a space, blank lines to `\n`. */
function flowOffsets(
  text: string,
  from: number,
  to: number,
  style: 'plain' | 'single' | 'double',
): { value: string; offsets: number[] } | undefined {
  const out = new Decoded();
  let i = from;
  const skipIndent = () => {
    while (i < to && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  while (i < to) {
    const char = text[i] as string;
    if (char === '\n') {
      out.trimTrailingSpace();
      const at = i;
      i++;
      skipIndent();
      let blankLines = 0;
      while (i < to && text[i] === '\n') {
        blankLines++;
        i++;
        skipIndent();
      }
      out.push(blankLines === 0 ? ' ' : '\n'.repeat(blankLines), at);
      continue;
    }
    if (style === 'single' && char === "'" && text[i + 1] === "'") {
      out.push("'", i);
      i += 2;
      continue;
    }
    if (style === 'double' && char === '\\') {
      const next = text[i + 1] ?? '';
      if (next === '\n') {
        // An escaped line break joins the lines without a space.
        i += 2;
        skipIndent();
        continue;
      }
      const simple = SIMPLE_ESCAPES[next];
      if (simple !== undefined) {
        out.push(simple, i);
        i += 2;
        continue;
      }
      const digits = HEX_ESCAPES[next];
      const hex = digits === undefined ? '' : text.slice(i + 2, i + 2 + digits);
      if (digits === undefined || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) {
        return undefined;
      }
      const codePoint = Number.parseInt(hex, 16);
      if (codePoint > 0x10ffff) return undefined;
      out.push(String.fromCodePoint(codePoint), i);
      i += 2 + digits;
      continue;
    }
    out.push(char, i, char === ' ' || char === '\t');
    i++;
  }
  return out.done(to);
}

/** `|` and `>` scalars: the header line, then lines indented as the first non-blank one. */
function blockOffsets(
  text: string,
  from: number,
  to: number,
  folded: boolean,
): { value: string; offsets: number[] } | undefined {
  const headerEnd = text.indexOf('\n', from);
  if (headerEnd === -1 || headerEnd >= to) return { value: '', offsets: [to] };
  // An explicit indentation indicator counts from the parent's indentation, unknown here.
  if (/^[|>][-+]?[1-9]/.test(text.slice(from, headerEnd))) return undefined;
  const lines: Array<{ start: number; end: number }> = [];
  for (let start = headerEnd + 1; start < to; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 || newline > to ? to : newline;
    lines.push({ start, end });
    start = end + 1;
  }
  const firstContent = lines.find((line) => text.slice(line.start, line.end).trim() !== '');
  if (!firstContent) return { value: '', offsets: [to] };
  const indent = /^ */.exec(text.slice(firstContent.start, firstContent.end))?.[0].length ?? 0;
  const out = new Decoded();
  let pendingBreaks: Array<{ offset: number }> = [];
  let previous: 'none' | 'normal' | 'more' = 'none';
  for (const line of lines) {
    const content = line.start + indent;
    const blank = text.slice(line.start, line.end).trim() === '';
    if (blank) {
      pendingBreaks.push({ offset: line.end });
      continue;
    }
    const kind = text[content] === ' ' || text[content] === '\t' ? 'more' : 'normal';
    const [lineBreak, ...blankLines] = pendingBreaks;
    if (previous === 'none') {
      for (const blankLine of pendingBreaks) out.push('\n', blankLine.offset);
    } else if (folded && previous === 'normal' && kind === 'normal') {
      // Folding: the break between two ordinary lines is a space, unless blank lines follow it.
      if (blankLines.length === 0 && lineBreak) out.push(' ', lineBreak.offset);
      for (const blankLine of blankLines) out.push('\n', blankLine.offset);
    } else {
      for (const pending of pendingBreaks) out.push('\n', pending.offset);
    }
    pendingBreaks = [];
    for (let i = content; i < line.end; i++) out.push(text[i] as string, i);
    pendingBreaks.push({ offset: line.end });
    previous = kind;
  }
  return out.done(to);
}
