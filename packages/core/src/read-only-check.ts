import type { z } from 'zod';

/**
 * A predicate that says whether `schema.safeParse(value)` would succeed, without building zod's
 * output: zod copies every object and array it parses (and an issue list per value), which for
 * the API's receipt ingest — a thousand receipts and as many tool sets per batch, all valid as a
 * rule — was most of the validation's cost and much of the garbage. Compiled once from the
 * schema's own definition, so it cannot drift from it: the same object, array, optional and
 * nullable rules as zod 4, and every refinement (`min`, `max`, `regex`, `int`, `nonnegative`,
 * ISO times…) run through zod's own check function. A schema part it does not know (a
 * transform, a default, a union…) throws here, at compile time, never a wrong verdict later.
 *
 * It only answers yes or no. On no, parse with the schema for the issues (and their field
 * paths) — {@link safeParseReadOnly} does both — so what a caller reports is zod's, word for word.
 */
export type ReadOnlyCheck<T> = (value: unknown) => value is T;

type Predicate = (value: unknown) => boolean;

/** What the compiler reads of zod 4's internals (`schema._zod`), kept to the fields it uses. */
interface ZodInternals {
  def: {
    type: string;
    checks?: ReadonlyArray<CheckInstance>;
    element?: SchemaInstance;
    innerType?: SchemaInstance;
    shape?: Record<string, SchemaInstance>;
    catchall?: SchemaInstance;
    coerce?: boolean;
  };
  traits: Set<string>;
  values?: ReadonlySet<unknown>;
  optin?: 'optional' | 'defaulted';
}
interface SchemaInstance {
  _zod: ZodInternals;
}
interface CheckPayload {
  value: unknown;
  issues: unknown[];
}
interface CheckInstance {
  _zod: {
    def: { check: string; when?: (payload: CheckPayload) => boolean };
    check: (payload: CheckPayload) => unknown;
  };
}

/** Compiles `schema` into a {@link ReadOnlyCheck}; throws on a schema part it cannot mirror. */
export function readOnlyCheck<S extends z.ZodType>(schema: S): ReadOnlyCheck<z.output<S>> {
  return compile(schema as unknown as SchemaInstance, '(root)') as ReadOnlyCheck<z.output<S>>;
}

/**
 * `schema.safeParse(value)`'s verdict and issues, with `check` (the schema's
 * {@link readOnlyCheck}) deciding first: a valid value comes back as itself, not as zod's copy —
 * so unknown keys a non-strict object would strip are still in it; read the declared fields only.
 */
export function safeParseReadOnly<S extends z.ZodType>(
  schema: S,
  check: ReadOnlyCheck<z.output<S>>,
  value: unknown,
): { success: true; data: z.output<S> } | { success: false; error: z.ZodError } {
  if (check(value)) return { success: true, data: value };
  const parsed = schema.safeParse(value);
  if (parsed.success) {
    // Cannot happen while the compiler mirrors zod; if it ever does, zod's verdict stands.
    return { success: true, data: parsed.data };
  }
  return { success: false, error: parsed.error };
}

function compile(schema: SchemaInstance, where: string): Predicate {
  const internals = schema._zod;
  const { def } = internals;
  if (def.coerce === true) throw unsupported(where, `coerced ${def.type}`);
  const refinements = refinementsOf(schema).map((check) => compileCheck(check, where));
  const base = compileType(internals, where);
  if (refinements.length === 0) return base;
  return (value) => {
    if (!base(value)) return false;
    for (const refinement of refinements) if (!refinement(value)) return false;
    return true;
  };
}

/** The checks zod runs after the type's own parse: the schema itself first when it is one. */
function refinementsOf(schema: SchemaInstance): CheckInstance[] {
  const checks = [...(schema._zod.def.checks ?? [])];
  if (schema._zod.traits.has('$ZodCheck')) checks.unshift(schema as unknown as CheckInstance);
  return checks;
}

function compileType(internals: ZodInternals, where: string): Predicate {
  const { def } = internals;
  switch (def.type) {
    case 'string':
      return (value) => typeof value === 'string';
    case 'number':
      // zod 4 refuses NaN and ±Infinity as numbers.
      return (value) => typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'literal':
    case 'enum': {
      const values = internals.values;
      if (values === undefined) throw unsupported(where, `${def.type} without values`);
      return (value) => values.has(value);
    }
    case 'optional': {
      const inner = innerOf(def.innerType, where);
      if (inner._zod.optin === 'defaulted') throw unsupported(where, 'optional of a default');
      const check = compile(inner, where);
      return (value) => value === undefined || check(value);
    }
    case 'nullable': {
      const check = compile(innerOf(def.innerType, where), where);
      return (value) => value === null || check(value);
    }
    case 'array': {
      const check = compile(innerOf(def.element, where), `${where}[]`);
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
        return true;
      };
    }
    case 'object':
      return compileObject(def, where);
    default:
      throw unsupported(where, def.type);
  }
}

function compileObject(def: ZodInternals['def'], where: string): Predicate {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape).filter((key) => key !== '__proto__'); // zod skips it too
  if (Object.getOwnPropertySymbols(shape).length > 0) throw unsupported(where, 'symbol keys');
  const members = keys.map((key) => {
    const schema = shape[key] as SchemaInstance;
    if (schema._zod.optin === 'defaulted') throw unsupported(`${where}.${key}`, 'a default');
    return {
      key,
      // Absent is fine only for an optional member (zod: optin); any other must be present.
      optional: schema._zod.optin === 'optional',
      check: compile(schema, `${where}.${key}`),
    };
  });
  const catchall = def.catchall?._zod.def.type;
  if (catchall !== undefined && catchall !== 'never') {
    throw unsupported(where, `an object with a ${catchall} catchall`);
  }
  const strict = catchall === 'never';
  const known = new Set(Object.keys(shape));
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const input = value as Record<string, unknown>;
    for (const member of members) {
      // `in`, as zod asks: a member present with `undefined` is checked as `undefined`.
      if (!(member.key in input)) {
        if (member.optional) continue;
        return false;
      }
      if (!member.check(input[member.key])) return false;
    }
    if (strict) {
      // `for…in` keys, as zod's strict objects look at (own enumerable ones, for parsed JSON)
      for (const key in input) if (!known.has(key)) return false;
    }
    return true;
  };
}

/**
 * A refinement, run by zod's own check function on a scratch payload (checks are synchronous
 * and keep nothing of it), so `min`, `regex`, `int`, ISO formats… mean exactly what they do in
 * zod. A check with a `when` runs only when zod would run it. The common ones first try a plain
 * test that can only accept what zod's check accepts (a pattern zod tests as it is, a length in
 * UTF-16 units that settles the count in code points, a bound); whatever it does not accept goes
 * to zod's check, which decides.
 */
function compileCheck(check: CheckInstance, where: string): Predicate {
  const { def } = check._zod;
  if (def.check === 'overwrite') throw unsupported(where, 'an overwrite (it changes the value)');
  const payload: CheckPayload = { value: undefined, issues: [] };
  const run = check._zod.check.bind(check._zod);
  const when = def.when;
  const byZod = (value: unknown): boolean => {
    payload.value = value;
    payload.issues.length = 0;
    if (when !== undefined && !when(payload)) return true;
    const result = run(payload);
    if (result instanceof Promise) throw unsupported(where, 'an asynchronous check');
    const ok = payload.issues.length === 0;
    payload.issues.length = 0;
    payload.value = undefined;
    return ok;
  };
  const accepts = fastAccept(def as CheckDef);
  if (accepts === undefined) return byZod;
  return (value) => accepts(value) || byZod(value);
}

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  value?: unknown;
  inclusive?: boolean;
}

/** The value types are the schema's own (its type was checked first); `when` holds for them. */
function fastAccept(def: CheckDef): Predicate | undefined {
  switch (def.check) {
    case 'string_format': {
      // zod's check for these two is `pattern.test` and nothing else (checks.js).
      const { pattern } = def;
      if (pattern === undefined || (def.format !== 'regex' && def.format !== 'datetime')) {
        return undefined;
      }
      return (value) => {
        pattern.lastIndex = 0;
        return pattern.test(value as string);
      };
    }
    case 'max_length': {
      // Code points never outnumber UTF-16 units.
      const { maximum } = def;
      if (typeof maximum !== 'number') return undefined;
      return (value) => (value as { length: number }).length <= maximum;
    }
    case 'min_length': {
      // A code point is at most two UTF-16 units; arrays count their elements.
      const { minimum } = def;
      if (typeof minimum !== 'number') return undefined;
      return (value) =>
        typeof value === 'string'
          ? value.length >= minimum * 2
          : (value as { length: number }).length >= minimum;
    }
    case 'greater_than':
    case 'less_than': {
      const bound = def.value;
      if (typeof bound !== 'number') return undefined;
      const above = def.check === 'greater_than';
      if (def.inclusive === true) {
        return above
          ? (value) => (value as number) >= bound
          : (value) => (value as number) <= bound;
      }
      return above ? (value) => (value as number) > bound : (value) => (value as number) < bound;
    }
    case 'number_format':
      return def.format === 'safeint' ? (value) => Number.isSafeInteger(value) : undefined;
    default:
      return undefined;
  }
}

function innerOf(schema: SchemaInstance | undefined, where: string): SchemaInstance {
  if (schema === undefined) throw unsupported(where, 'a wrapper without its inner schema');
  return schema;
}

function unsupported(where: string, what: string): Error {
  return new Error(`readOnlyCheck: ${where} is ${what}, which it does not mirror; use zod there`);
}
