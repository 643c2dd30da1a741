import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readOnlyCheck, safeParseReadOnly } from './read-only-check.ts';
import { buildReceiptBody } from './receipt/build-receipt.ts';
import { chainReceipt } from './receipt/chain.ts';
import { ReceiptV1, StoredReceipt, ToolSet } from './receipt/receipt-schema.ts';
import { chatReceiptInput } from './receipt/test-receipts.ts';
import { compactReceipt } from './receipt/tool-set.ts';

// The schemas the API's ingest checks with readOnlyCheck, each proven against zod below.
const SCHEMAS = { StoredReceipt, ReceiptV1, ToolSet } as const;

/** Leaf values: each leaf schema draws its valid and invalid ones from here, as zod sorts them. */
const HASH = `sha256:${'a'.repeat(64)}`;
const LEAF_POOL: unknown[] = [
  '',
  'x',
  'alice',
  'a'.repeat(128),
  'a'.repeat(129),
  'a'.repeat(253),
  'a'.repeat(254),
  'a'.repeat(1024),
  'a'.repeat(1025),
  HASH,
  `sha256:${'A'.repeat(64)}`,
  `sha256:${'a'.repeat(63)}`,
  `${HASH}\n`,
  '2026-01-02T03:04:05.000Z',
  '2026-01-02T03:04:05+02:00',
  '2026-01-02T03:04:05',
  '2026-13-02T03:04:05Z',
  '2026-01-02',
  0,
  1,
  -1,
  0.5,
  99,
  100,
  599,
  600,
  2 ** 53,
  -0,
  1e308,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  undefined,
  [],
  {},
];

type Schema = z.ZodType & { _zod: { def: Record<string, unknown>; values?: Set<unknown> } };

/** Values shaped like `schema`, mostly valid, each node now and then something else entirely. */
function arbitraryOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const def = schema._zod.def as {
    type: string;
    innerType?: Schema;
    element?: Schema;
    shape?: Record<string, Schema>;
  };
  const wild = fc.constantFrom(...LEAF_POOL);
  const mostly = (valid: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 60, arbitrary: valid }, { weight: 1, arbitrary: wild });
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return fc.oneof(
        { weight: 8, arbitrary: arbitraryOf(def.innerType as Schema, depth) },
        { weight: 1, arbitrary: fc.constant(def.type === 'optional' ? undefined : null) },
      );
    case 'array':
      return mostly(fc.array(arbitraryOf(def.element as Schema, depth + 1), { maxLength: 3 }));
    case 'object': {
      const shape = def.shape ?? {};
      const keys = Object.keys(shape);
      const members = Object.fromEntries(
        keys.map((key) => [key, arbitraryOf(shape[key] as Schema, depth + 1)]),
      );
      const requiredKeys = keys.filter(
        (key) => !(shape[key] as Schema).safeParse(undefined).success,
      );
      const record = fc.record(members, { requiredKeys });
      const mutated = fc
        .tuple(record, fc.nat(keys.length), fc.constantFrom('drop', 'unknown', 'none'))
        .map(([value, index, how]) => {
          const copy: Record<string, unknown> = { ...(value as object) };
          if (how === 'drop') delete copy[keys[index % keys.length] as string];
          if (how === 'unknown') copy.unknown_field = index;
          return copy;
        });
      return mostly(fc.oneof({ weight: 12, arbitrary: record }, { weight: 1, arbitrary: mutated }));
    }
    default: {
      const candidates = [...LEAF_POOL, ...(schema._zod.values ?? [])];
      const valid = candidates.filter((value) => schema.safeParse(value).success);
      const invalid = candidates.filter((value) => !schema.safeParse(value).success);
      if (valid.length === 0) throw new Error(`no valid pool value for a ${def.type}`);
      return fc.oneof(
        { weight: 80, arbitrary: fc.constantFrom(...valid) },
        { weight: 1, arbitrary: fc.constantFrom(...(invalid.length > 0 ? invalid : valid)) },
      );
    }
  }
}

describe('readOnlyCheck', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`accepts exactly what zod's ${name} accepts (property)`, () => {
      const check = readOnlyCheck(schema);
      let accepted = 0;
      let rejected = 0;
      fc.assert(
        fc.property(arbitraryOf(schema as unknown as Schema), (value) => {
          const verdict = check(value);
          const zod = schema.safeParse(value);
          expect(verdict).toBe(zod.success);
          // And what a caller reports on a rejection is zod's, field paths and all.
          const parsed = safeParseReadOnly(schema, check, value);
          expect(parsed.success ? [] : parsed.error.issues).toEqual(
            zod.success ? [] : zod.error.issues,
          );
          if (verdict) accepted++;
          else rejected++;
        }),
        { numRuns: 1500 },
      );
      // The generator must reach both verdicts often, or the property proves little.
      expect(accepted).toBeGreaterThan(100);
      expect(rejected).toBeGreaterThan(100);
    });
  }

  it('agrees with zod on every leaf of a real receipt set to each wrong or edge value (table)', () => {
    const served = realReceipt();
    const { stored, toolSet } = compactReceipt(served);
    const v1 = { ...served, schema: 'toolgate.receipt.v1' };
    const cases: Array<[string, z.ZodType, unknown]> = [
      ['StoredReceipt', StoredReceipt, stored],
      ['ReceiptV1', ReceiptV1, v1],
      ['ToolSet', ToolSet, toolSet],
    ];
    let compared = 0;
    for (const [name, schema, valid] of cases) {
      const check = readOnlyCheck(schema);
      expect(check(valid), `${name} valid`).toBe(true);
      for (const path of pathsOf(valid)) {
        for (const replacement of [...LEAF_POOL, DROP, { extra: 1 }, ['x']]) {
          const mutated = withValueAt(valid, path, replacement);
          const parsed = schema.safeParse(mutated);
          expect(check(mutated), `${name} ${path.join('.')} = ${String(replacement)}`).toBe(
            parsed.success,
          );
          compared++;
        }
      }
      // An unknown member: stripped by a plain object, refused by a strict one (ToolSet).
      for (const path of [[], ...pathsOf(valid).map((p) => p.slice(0, -1))]) {
        const target = path.length === 0 ? valid : valueAt(valid, path);
        if (typeof target !== 'object' || target === null || Array.isArray(target)) continue;
        const mutated = withValueAt(valid, [...path, 'not_in_schema'], 1);
        expect(check(mutated), `${name} ${path.join('.')}.not_in_schema`).toBe(
          schema.safeParse(mutated).success,
        );
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });

  it('mirrors optional, nullable, strict, min/max, int and regex refinements', () => {
    const schema = z
      .object({
        a: z.string().min(2).max(3),
        b: z.number().int().nonnegative().optional(),
        c: z.string().regex(/^x+$/).nullable(),
        d: z.array(z.enum(['p', 'q'])).max(2),
        e: z.iso.datetime({ offset: true }),
        f: z.literal('v1'),
      })
      .strict();
    const check = readOnlyCheck(schema);
    const base = { a: 'ab', c: null, d: ['p'], e: '2026-01-02T03:04:05Z', f: 'v1' };
    const table: Array<[string, unknown]> = [
      ['base', base],
      ['b present', { ...base, b: 3 }],
      ['b explicit undefined', { ...base, b: undefined }],
      ['b not an int', { ...base, b: 1.5 }],
      ['b negative', { ...base, b: -1 }],
      ['a too short', { ...base, a: 'a' }],
      ['a too long', { ...base, a: 'abcd' }],
      // zod counts code points: 6 UTF-16 units are 3 of them, 2 units are 1.
      ['a astral, 3 code points', { ...base, a: '\u{1F600}\u{1F600}\u{1F600}' }],
      ['a astral, 4 code points', { ...base, a: '\u{1F600}'.repeat(4) }],
      ['a astral, 1 code point', { ...base, a: '\u{1F600}' }],
      ['b past the safe integers', { ...base, b: 2 ** 53 }],
      ['c matching', { ...base, c: 'xx' }],
      ['c not matching', { ...base, c: 'xy' }],
      ['c missing', { a: 'ab', d: [], e: base.e, f: 'v1' }],
      ['d too long', { ...base, d: ['p', 'q', 'p'] }],
      ['d bad member', { ...base, d: ['r'] }],
      ['e with offset', { ...base, e: '2026-01-02T03:04:05+01:00' }],
      ['e no zone', { ...base, e: '2026-01-02T03:04:05' }],
      ['f other', { ...base, f: 'v2' }],
      ['unknown key', { ...base, z: 1 }],
      ['array root', [base]],
      ['null root', null],
    ];
    for (const [name, value] of table) {
      expect(check(value), name).toBe(schema.safeParse(value).success);
    }
    expect(table.filter(([, value]) => check(value)).length).toBe(6);
  });

  it('refuses to compile what it does not mirror', () => {
    expect(() => readOnlyCheck(z.object({ a: z.string().transform((s) => s.length) }))).toThrow(
      /readOnlyCheck: \(root\)\.a is pipe/,
    );
    expect(() => readOnlyCheck(z.object({ a: z.string().default('x') }))).toThrow(/a default/);
    expect(() => readOnlyCheck(z.union([z.string(), z.number()]))).toThrow(/is union/);
    expect(() => readOnlyCheck(z.object({}).passthrough())).toThrow(/unknown catchall/);
    expect(() => readOnlyCheck(z.string().trim())).toThrow(/overwrite/);
  });
});

describe('safeParseReadOnly', () => {
  it('returns a valid value itself, and zod’s issues (with their paths) for an invalid one', () => {
    const { stored } = compactReceipt(realReceipt());
    const check = readOnlyCheck(StoredReceipt);
    const valid = { ...stored, unknown_member: 1 };
    const ok = safeParseReadOnly(StoredReceipt, check, valid);
    expect(ok.success && ok.data).toBe(valid);
    const invalid = withValueAt(stored, ['bundle', 'policies', 0, 'hash'], 'sha256:nope');
    const failed = safeParseReadOnly(StoredReceipt, check, invalid);
    const zod = StoredReceipt.safeParse(invalid);
    expect(failed.success).toBe(false);
    expect(!failed.success && failed.error.issues).toEqual(!zod.success && zod.error.issues);
    expect(!failed.success && failed.error.issues[0]?.path).toEqual([
      'bundle',
      'policies',
      0,
      'hash',
    ]);
  });
});

function realReceipt() {
  const input = chatReceiptInput('r-1', undefined, { status: 200, error: 'none' });
  return chainReceipt(buildReceiptBody(input), HASH);
}

const DROP = Symbol('drop');
type Path = Array<string | number>;

/** Every path to a leaf, an array or an object member of `value`. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

function valueAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown>)[key],
    value,
  );
}

/** A deep copy of `value` with `path` set to `replacement` (or removed, for DROP). */
function withValueAt(value: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const key = path[path.length - 1] as string | number;
  if (replacement === DROP) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else {
    parent[key] = typeof replacement === 'object' ? structuredClone(replacement) : replacement;
  }
  return copy;
}
