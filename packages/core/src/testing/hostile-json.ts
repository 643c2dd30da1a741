import fc from 'fast-check';

/**
 * Building blocks for fuzzing HTTP endpoints that take JSON (the API's routes, the gateway's
 * provider endpoints): paths into a valid template, values of the wrong type, bodies nested too
 * deeply, broken JSON and broken UTF-8. Test support only (fast-check is a dev dependency).
 */
export type JsonPath = Array<string | number>;

/** Every path inside a JSON value (objects and arrays), root first. */
export function pathsOf(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => pathsOf(v, [...prefix, i])));
  if (value && typeof value === 'object') {
    return here.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...prefix, k])));
  }
  return here;
}

export function valueAt(root: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

/** A copy of `root` with `value` at `path`. */
export function setAt(root: unknown, path: JsonPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1) as string | number] = value;
  return copy;
}

/** A value of another JSON type than `original` (numbers also get out-of-range ones). */
export function wrongValue(original: unknown): fc.Arbitrary<unknown> {
  const byType: Record<string, fc.Arbitrary<unknown>> = {
    null: fc.constant(null),
    boolean: fc.boolean(),
    number: fc.constantFrom(-1, 0, 1.5, 1e308, -2147483649, Number.MAX_SAFE_INTEGER),
    string: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('x'.repeat(5000))),
    array: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    object: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 4,
    }),
  };
  const type = original === null ? 'null' : Array.isArray(original) ? 'array' : typeof original;
  return fc.oneof(
    ...Object.entries(byType)
      .filter(([name]) => name !== type || name === 'number')
      .map(([, arbitrary]) => arbitrary),
  );
}

/** JSON text nested `depth` levels deep: objects, or arrays. */
export const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
export const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/**
 * Text that is not the JSON object an endpoint wants: `valid` cut short or with trailing
 * garbage or a BOM, random text, JSON5-isms, prototype-pollution keys, other JSON types.
 */
export function malformedJson(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: Math.max(0, valid.length - 1) }).map((n) => valid.slice(0, n)),
    fc.string({ maxLength: 50 }),
    fc.constantFrom(
      '',
      '{',
      '{"a":1,}',
      "{'a':1}",
      '{"a":NaN}',
      `${valid} trailing`,
      '/* c */ {}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      `\uFEFF${valid}`,
      'null',
      '[]',
      '"str"',
      '1e999',
    ),
  );
}

/** `valid` with an invalid UTF-8 sequence inside a string value (where a lenient decoder keeps it). */
export function invalidUtf8(valid: string): fc.Arbitrary<Uint8Array> {
  return fc
    .record({
      at: fc.nat({ max: Math.max(0, valid.length - 1) }),
      bytes: fc.constantFrom(
        [0xff],
        // Overlongs: two, three and four bytes for what one would say.
        [0xc0, 0xaf],
        [0xe0, 0x80, 0xaf],
        [0xf0, 0x80, 0x80, 0xaf],
        // Encoded surrogates (CESU-8 style), a code point past U+10FFFF, a five-byte lead.
        [0xed, 0xa0, 0x80],
        [0xed, 0xbf, 0xbf],
        [0xf4, 0x90, 0x80, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        // Lone continuation bytes, and sequences cut short.
        [0x80],
        [0x80, 0x80],
        [0xc3],
        [0xe2, 0x82],
        [0xf0, 0x9f, 0x98],
        [0xe2, 0x28, 0xa1],
      ),
    })
    .map(({ at, bytes }) => {
      const quote = Math.max(1, valid.indexOf('"', at) + 1);
      const raw = Buffer.from(valid, 'utf8');
      const cut = Buffer.byteLength(valid.slice(0, quote), 'utf8');
      return new Uint8Array(
        Buffer.concat([raw.subarray(0, cut), Buffer.from(bytes), raw.subarray(cut)]),
      );
    });
}

/** Escapes of lone UTF-16 surrogates: high, low, at the ends of the range, two highs in a row. */
const LONE_SURROGATES = ['\\ud800', '\\udbff', '\\udc00', '\\uDFFF', '\\ud83d\\ud83d'];

/**
 * JSON text of `value` with a lone UTF-16 surrogate (a `\uXXXX` escape, the only way one gets
 * into valid UTF-8) at the start of one of its strings or object keys, or the whole body a lone
 * surrogate string when it has neither. Valid JSON that no store can hold faithfully.
 */
export function loneSurrogateJson(value: unknown): fc.Arbitrary<string> {
  const marker = '__lone_surrogate__';
  const places = pathsOf(value).flatMap((path): unknown[] => {
    const node = valueAt(value, path);
    if (typeof node === 'string') return [setAt(value, path, `${marker}${node}`)];
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return [];
    const keys = Object.keys(node);
    if (keys.length === 0) return [];
    const renamed = Object.fromEntries(
      keys.map((key, i) => [
        i === 0 ? `${marker}${key}` : key,
        (node as Record<string, unknown>)[key],
      ]),
    );
    return [setAt(value, path, renamed)];
  });
  const texts = (places.length > 0 ? places : [marker]).map((v) => JSON.stringify(v));
  return fc
    .record({ text: fc.constantFrom(...texts), lone: fc.constantFrom(...LONE_SURROGATES) })
    .map(({ text, lone }) => text.replace(marker, lone));
}

/** Content types a JSON endpoint must refuse (or at least never mistake for JSON). */
export const NON_JSON_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=latin1',
] as const;

/**
 * A fast-check `reporter` that names the failing input in a readable size (the default prints
 * whole, often huge, bodies): the failure's message, the run count and `describe(input)`.
 */
export function readableFailure<T>(
  describe: (input: T) => string,
): (details: fc.RunDetails<[T]>) => void {
  return (details) => {
    if (!details.failed) return;
    const input = details.counterexample?.[0];
    const cause =
      details.errorInstance instanceof Error
        ? details.errorInstance.message
        : String(details.errorInstance);
    throw new Error(
      `${cause}\n  after ${details.numRuns} runs, for ${input === undefined ? '?' : describe(input)}`,
    );
  };
}
