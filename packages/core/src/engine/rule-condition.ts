import {
  type CelInput,
  type CelMap,
  CelScalar,
  celEnv,
  celList,
  celMap,
  isCelError,
  mapType,
  parse,
  plan,
} from '@bufbuild/cel';
import { RE2JS } from '@bufbuild/re2';
import type { IdentityField, RuleIdentity } from './identity-match.ts';

/**
 * A rule's `when:` condition (CEL). @bufbuild/cel 0.6 exports no type checker and no cost
 * limit, so a condition is bounded where it is compiled: its length (the schema), its size in
 * AST nodes and its nesting of comprehensions (each ranges over a list of at most
 * {@link MAX_HISTORY_CALLS} items), and every reference to a variable, a field of one, or a
 * function is checked against what is declared here, with its position.
 */

export const MAX_WHEN_LENGTH = 1024;
const MAX_NODES = 256;

type ParsedExpr = ReturnType<typeof parse>;
type Expr = NonNullable<ParsedExpr['expr']>;
const MAX_COMPREHENSION_DEPTH = 2;
/** `history` keeps the newest calls only: evaluation cost stays bounded however long a chat is. */
export const MAX_HISTORY_CALLS = 256;

/** The declared variables and, per variable, its fields. */
const FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  tool: new Set(['name', 'declared_by', 'type']),
  identity: new Set(['human', 'service', 'session', 'binding']),
  request: new Set(['surface', 'model']),
  history: new Set(['tools', 'calls']),
};

/** Std functions and operators a condition may call; anything else is refused at compile. */
const FUNCTIONS = new Set([
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_&&_',
  '_||_',
  '!_',
  '_?_:_',
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  '_[_]',
  '@in',
  '@not_strictly_false',
  'size',
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'dyn',
]);

/**
 * `args`: the call's parsed arguments, on the response side only (call-time rules). Any JSON,
 * so its fields are not declared: reading one the call does not have is a runtime error.
 */
const ARGS = 'args';

/**
 * `matches` compiles its pattern on every call in @bufbuild/cel; a condition's pattern is almost
 * always a literal, so compiled patterns are kept (bounded; RE2: linear time, no backtracking).
 */
const PATTERNS = new Map<string, RE2JS>();
const MAX_PATTERNS = 256;
const cachedRe2 = {
  compile(pattern: string): RE2JS {
    let compiled = PATTERNS.get(pattern);
    if (compiled === undefined) {
      compiled = RE2JS.compile(pattern);
      if (PATTERNS.size >= MAX_PATTERNS) PATTERNS.delete(PATTERNS.keys().next().value as string);
      PATTERNS.set(pattern, compiled);
    }
    return compiled;
  },
};

const ENV = celEnv({
  re2: cachedRe2,
  variables: {
    ...Object.fromEntries(
      Object.keys(FIELDS).map((name) => [name, mapType(CelScalar.STRING, CelScalar.DYN)]),
    ),
    [ARGS]: CelScalar.DYN,
  },
});

/** A compile problem with its `line:column` (1-based) in the expression. */
export class ConditionError extends Error {}

export interface RuleCondition {
  readonly source: string;
  /** Whether the expression reads `history` (so it is computed only when some rule needs it). */
  readonly readsHistory: boolean;
  /**
   * Where the expression first reads `args` (`line:column`), if it does: such a condition can
   * only be judged per call, on the response side.
   */
  readonly argsAt?: string;
  /** Evaluates against variables bound by {@link bindConditionVars} (bind once, evaluate many). */
  readonly evaluateBound: (bindings: ConditionBindings) => ConditionOutcome;
  /** Binds and evaluates: for one condition against one set of variables. */
  readonly evaluate: (vars: ConditionVars) => ConditionOutcome;
}

/** true / false, or `error` when evaluation failed or gave no boolean. */
export type ConditionOutcome = boolean | 'error';

export interface ToolFacts {
  name: string;
  declared_by: string;
  type: string;
}

export interface HistoryCall {
  name: string;
  args: unknown;
}

export interface ConditionVars {
  tool: ToolFacts;
  identity: RuleIdentity;
  request: { surface: string; model: string };
  history?: ReadonlyArray<HistoryCall>;
  /** The call's parsed arguments (response side only). */
  args?: unknown;
}

/** Compiled conditions by source: the schema and the bundle compile each expression once. */
const COMPILED = new Map<string, RuleCondition>();
const MAX_COMPILED = 1024;

/** Compiles a condition, or throws {@link ConditionError} naming the position. */
export function compileCondition(source: string): RuleCondition {
  const known = COMPILED.get(source);
  if (known !== undefined) return known;
  const compiled = compileUncached(source);
  if (COMPILED.size >= MAX_COMPILED) COMPILED.delete(COMPILED.keys().next().value as string);
  COMPILED.set(source, compiled);
  return compiled;
}

function compileUncached(source: string): RuleCondition {
  if (source.length > MAX_WHEN_LENGTH) {
    throw new ConditionError(`must be at most ${MAX_WHEN_LENGTH} characters`);
  }
  let parsed: ParsedExpr;
  try {
    parsed = parse(source);
  } catch (error) {
    const message = (error as Error).message.replace(/^<input>:/, '');
    throw new ConditionError(message);
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const where = (expr: Expr) => position(source, positions[String(expr.id)] ?? 0);
  const roots = checkReferences(parsed.expr, where);
  const program = plan(ENV, parsed);
  const argsAt = roots.get(ARGS);
  return {
    source,
    readsHistory: roots.has('history'),
    ...(argsAt !== undefined ? { argsAt } : {}),
    evaluateBound,
    evaluate: (vars) => evaluateBound(bindConditionVars(vars)),
  };

  function evaluateBound(bindings: ConditionBindings): ConditionOutcome {
    if (bindings === TOO_LARGE) return 'error';
    let result: unknown;
    try {
      result = program(bindings as never);
    } catch {
      return 'error';
    }
    if (isCelError(result) || typeof result !== 'boolean') return 'error';
    return result;
  }
}

function position(source: string, offset: number): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - before.lastIndexOf('\n')}`;
}

/**
 * Walks the AST: bounds it and checks every reference. Returns the variables read, each with
 * the position of its first reference.
 */
function checkReferences(root: Expr | undefined, where: (e: Expr) => string): Map<string, string> {
  const roots = new Map<string, string>();
  let nodes = 0;
  const visit = (expr: Expr | undefined, bound: ReadonlySet<string>, depth: number): void => {
    if (expr === undefined) return;
    if (++nodes > MAX_NODES) {
      throw new ConditionError(`${where(expr)}: expression has more than ${MAX_NODES} nodes`);
    }
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'identExpr':
        checkVariable(kind.value.name, expr, bound, where, roots);
        return;
      case 'selectExpr': {
        const operand = kind.value.operand;
        if (operand?.exprKind.case === 'identExpr' && !bound.has(operand.exprKind.value.name)) {
          const name = operand.exprKind.value.name;
          checkVariable(name, operand, bound, where, roots);
          if (name !== ARGS && !FIELDS[name]?.has(kind.value.field)) {
            throw new ConditionError(
              `${where(expr)}: undefined field '${kind.value.field}' of '${name}'`,
            );
          }
          nodes++;
          return;
        }
        visit(operand, bound, depth);
        return;
      }
      case 'callExpr':
        if (!FUNCTIONS.has(kind.value.function)) {
          throw new ConditionError(
            `${where(expr)}: undeclared reference to function '${kind.value.function}'`,
          );
        }
        visit(kind.value.target, bound, depth);
        for (const arg of kind.value.args) visit(arg, bound, depth);
        return;
      case 'listExpr':
        for (const element of kind.value.elements) visit(element, bound, depth);
        return;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, bound, depth);
          visit(entry.value, bound, depth);
        }
        return;
      case 'comprehensionExpr': {
        const c = kind.value;
        if (depth + 1 > MAX_COMPREHENSION_DEPTH) {
          throw new ConditionError(
            `${where(expr)}: comprehensions nest more than ${MAX_COMPREHENSION_DEPTH} deep`,
          );
        }
        visit(c.iterRange, bound, depth);
        visit(c.accuInit, bound, depth);
        const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean));
        visit(c.loopCondition, inner, depth + 1);
        visit(c.loopStep, inner, depth + 1);
        visit(c.result, inner, depth + 1);
        return;
      }
      default:
        return;
    }
  };
  visit(root, new Set(), 0);
  return roots;
}

function checkVariable(
  name: string,
  expr: Expr,
  bound: ReadonlySet<string>,
  where: (e: Expr) => string,
  roots: Map<string, string>,
): void {
  if (bound.has(name)) return;
  if (name !== ARGS && FIELDS[name] === undefined) {
    throw new ConditionError(`${where(expr)}: undeclared reference '${name}'`);
  }
  if (!roots.has(name)) roots.set(name, where(expr));
}

const IDENTITY_FIELDS: ReadonlyArray<IdentityField> = ['human', 'service', 'session'];

/** A value past {@link ARGS_LIMITS}: every condition reading it errors at once. */
const TOO_LARGE = Symbol('too large');

/** The CEL values of one set of variables, made once and read by every condition. */
export type ConditionBindings = Record<string, unknown> | typeof TOO_LARGE;

/**
 * Binds variables for evaluation. Callers bind once per tool (per call on the response side)
 * and evaluate every condition against it. The identity, the request and its history are the
 * same objects for every tool of a request: their CEL values are kept on them (a non-enumerable
 * symbol property: invisible to JSON, spreads and key listings), so they are made once per
 * request. Not a WeakMap: entries made per call made the garbage collector's ephemeron work the
 * largest cost of a condition.
 */
export function bindConditionVars(vars: ConditionVars): ConditionBindings {
  try {
    return bindings(vars);
  } catch (error) {
    if (!(error instanceof ArgsTooLarge)) throw error;
    return TOO_LARGE;
  }
}

const CEL = Symbol('toolgate.cel.value');

export function memoized<K extends object, V>(key: K, slot: symbol, make: (key: K) => V): V {
  const known = (key as Record<symbol, V | undefined>)[slot];
  if (known !== undefined) return known;
  const value = make(key);
  if (Object.isExtensible(key)) Object.defineProperty(key, slot, { value });
  return value;
}

/**
 * The CEL values. An identity field is present only when it is trusted: reading an unproven
 * one is a runtime error, which fails a restricting rule closed.
 */
function bindings(vars: ConditionVars): Record<string, unknown> {
  // Built by assignment, not spreads: a conditional spread in an object literal takes V8's slow
  // path (microseconds per object), and this runs for every tool and call a condition reads.
  const values: Record<string, unknown> = {
    tool: toolValue(vars.tool),
    identity: memoized(vars.identity, CEL, identityValue),
    request: memoized(vars.request, CEL, requestValue),
    history: historyValue(vars.history ?? NO_HISTORY),
  };
  // Absent on the request side: reading it there is an error (and refused at compile).
  if (vars.args !== undefined) values[ARGS] = celValue(vars.args);
  return values;
}

function toolValue(tool: ToolFacts): CelMap {
  const fields = new Map<string, CelInput>();
  fields.set('name', tool.name);
  fields.set('declared_by', tool.declared_by);
  fields.set('type', tool.type);
  return celMap(fields);
}

function requestValue(request: ConditionVars['request']): CelMap {
  const fields = new Map<string, CelInput>();
  fields.set('surface', request.surface);
  fields.set('model', request.model);
  return celMap(fields);
}

function identityValue(identity: RuleIdentity): CelMap {
  const fields = new Map<string, CelInput>([['binding', bindingOf(identity)]]);
  for (const field of IDENTITY_FIELDS) {
    const value = identity[field];
    if (value !== undefined && identity.trusted?.includes(field)) fields.set(field, value);
  }
  return celMap(fields);
}

const NO_HISTORY: ReadonlyArray<HistoryCall> = [];

function historyValue(calls: ReadonlyArray<HistoryCall>): CelMap {
  const value = memoized<ReadonlyArray<HistoryCall>, CelMap | typeof TOO_LARGE>(calls, CEL, () => {
    try {
      return celMap(
        new Map<string, CelInput>([
          ['tools', celList(calls.map((c) => c.name))],
          ['calls', celList(calls.map(historyCallValue))],
        ]),
      );
    } catch (error) {
      if (!(error instanceof ArgsTooLarge)) throw error;
      return TOO_LARGE;
    }
  });
  if (value === TOO_LARGE) throw new ArgsTooLarge();
  return value;
}

function historyCallValue(call: HistoryCall): CelMap {
  return celMap(
    new Map<string, CelInput>([
      ['name', call.name],
      ['args', celValue(call.args)],
    ]),
  );
}

/** The receipt's binding when the gateway passed it, else what `trusted` implies. */
function bindingOf(identity: RuleIdentity): string {
  if (identity.binding !== undefined) return identity.binding;
  return identity.trusted?.includes('human') || identity.trusted?.includes('service')
    ? 'verified'
    : 'unverified';
}

/** Bounds of one JSON value a condition reads (`args`, each `history.calls[i].args`). */
export const ARGS_LIMITS = { nodes: 4096, listLength: MAX_HISTORY_CALLS, depth: 32 } as const;

class ArgsTooLarge extends Error {}

/**
 * JSON as CEL input: objects become CEL maps (CEL reads plain objects as messages) and arrays CEL
 * lists, once, here — given plain ones, @bufbuild/cel wraps a value again on every read. Bounded, so a
 * comprehension's cost is too: a value past {@link ARGS_LIMITS} makes the evaluation an error
 * (which fails a restricting rule closed), never a slow one.
 */
function celValue(value: unknown): CelInput {
  let nodes = 0;
  const convert = (v: unknown, depth: number): CelInput => {
    if (++nodes > ARGS_LIMITS.nodes || depth > ARGS_LIMITS.depth) throw new ArgsTooLarge();
    if (Array.isArray(v)) {
      if (v.length > ARGS_LIMITS.listLength) throw new ArgsTooLarge();
      return celList(v.map((item) => convert(item, depth + 1)));
    }
    if (v !== null && typeof v === 'object') {
      return celMap(
        new Map(Object.entries(v).map(([k, item]) => [k, convert(item, depth + 1)] as const)),
      );
    }
    // Parsed JSON: what is left is a string, number, boolean or null.
    return v as CelInput;
  };
  return convert(value, 0);
}
