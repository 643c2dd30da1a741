/** One line of an edit script: kept (` `), removed (`-`) or added (`+`). */
interface Edit {
  op: ' ' | '-' | '+';
  text: string;
}

/** Above this many cells the LCS table is not built: everything is shown as replaced. */
const MAX_CELLS = 16_000_000;

/** The shortest edit script from `a` to `b` (longest common subsequence of lines). */
function editScript(a: ReadonlyArray<string>, b: ReadonlyArray<string>): Edit[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    return [
      ...a.map((text) => ({ op: '-' as const, text })),
      ...b.map((text) => ({ op: '+' as const, text })),
    ];
  }
  // lcs[i][j]: LCS length of a[i..] and b[j..], one flat row-major array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      edits.push({ op: ' ', text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      edits.push({ op: '-', text: a[i++] as string });
    } else edits.push({ op: '+', text: b[j++] as string });
  }
  while (i < n) edits.push({ op: '-', text: a[i++] as string });
  while (j < m) edits.push({ op: '+', text: b[j++] as string });
  return edits;
}

/**
 * A unified diff (`diff -u` format) of two texts, or `''` when they are equal.
 * `context` unchanged lines surround each change.
 */
export function unifiedDiff(
  from: { label: string; text: string },
  to: { label: string; text: string },
  context = 3,
): string {
  if (from.text === to.text) return '';
  const split = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const edits = editScript(split(from.text), split(to.text));
  const out = [`--- ${from.label}`, `+++ ${to.label}`];
  // Positions (in `edits`) of changed lines; hunks gather changes closer than 2 × context.
  const changed = edits.flatMap((edit, index) => (edit.op === ' ' ? [] : [index]));
  let start = 0;
  while (start < changed.length) {
    let end = start;
    while (
      end + 1 < changed.length &&
      (changed[end + 1] as number) - (changed[end] as number) <= 2 * context
    ) {
      end++;
    }
    const first = Math.max(0, (changed[start] as number) - context);
    const last = Math.min(edits.length - 1, (changed[end] as number) + context);
    // Line numbers where the hunk starts: count lines of each side before `first`.
    let fromLine = 1;
    let toLine = 1;
    for (let k = 0; k < first; k++) {
      const op = edits[k]?.op;
      if (op !== '+') fromLine++;
      if (op !== '-') toLine++;
    }
    const hunk = edits.slice(first, last + 1);
    const fromCount = hunk.filter((e) => e.op !== '+').length;
    const toCount = hunk.filter((e) => e.op !== '-').length;
    out.push(
      `@@ -${range(fromLine, fromCount)} +${range(toLine, toCount)} @@`,
      ...hunk.map((e) => `${e.op}${e.text}`),
    );
    start = end + 1;
  }
  return `${out.join('\n')}\n`;
}

/** `diff -u` ranges: `start,count`, `start` alone for one line, `start-1,0` for none. */
function range(start: number, count: number): string {
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}
