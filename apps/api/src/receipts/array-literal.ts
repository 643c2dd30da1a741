/** PostgreSQL array literals for the ingest statement's parameters (receipts.repository.ts). */

/**
 * PostgreSQL array literal: `{"a","b \\"quoted\\"",NULL}`. A plain loop, escaping only what
 * needs it: a batch's statement builds some 20,000 elements.
 */
export function arrayLiteral(values: ReadonlyArray<string | null>): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as string | null;
    if (i > 0) literal += ',';
    if (value === null) literal += 'NULL';
    else literal += `"${NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, '\\$&') : value}"`;
  }
  return `${literal}}`;
}

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** `arrayLiteral(rows.map(value))`, without the intermediate array (20 columns a statement). */
export function columnLiteral<R>(rows: ReadonlyArray<R>, value: (row: R) => string | null): string {
  let literal = '{';
  for (let i = 0; i < rows.length; i++) {
    const element = value(rows[i] as R);
    if (i > 0) literal += ',';
    if (element === null) literal += 'NULL';
    else literal += `"${NEEDS_ESCAPE.test(element) ? element.replace(ESCAPED, '\\$&') : element}"`;
  }
  return `${literal}}`;
}

/**
 * `arrayLiteral(rows.map((row) => arrayLiteral(values(row))))`: each row's array literal quoted
 * as an element of the outer one. Its quotes would all need escaping, so a row whose values need
 * no escaping themselves is written escaped directly (`"{\"a\",\"b\"}"`) instead of being
 * built and then run through the escaping regex; any other row goes the long way.
 */
export function nestedLiteral<R>(
  rows: ReadonlyArray<R>,
  values: (row: R) => ReadonlyArray<string>,
): string {
  let literal = '{';
  for (let i = 0; i < rows.length; i++) {
    const inner = values(rows[i] as R);
    if (i > 0) literal += ',';
    let plain = true;
    for (const value of inner) {
      if (NEEDS_ESCAPE.test(value)) {
        plain = false;
        break;
      }
    }
    if (plain) {
      literal += inner.length === 0 ? '"{}"' : `"{\\"${inner.join('\\",\\"')}\\"}"`;
    } else {
      literal += `"${arrayLiteral(inner).replace(ESCAPED, '\\$&')}"`;
    }
  }
  return `${literal}}`;
}
