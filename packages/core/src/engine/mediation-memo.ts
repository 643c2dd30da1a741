import { sha256Hex } from '#sha256';
import { deepFreeze } from '../json/deep-freeze.ts';
import type { JsonObject } from '../json/json-value.ts';
import { nulPath } from '../json/well-formed-text.ts';
import { tryCanonicalize } from './tool-schema.ts';

/** A declaration with its exact JSON text (the memo key) and its canonical schema hash. */
export interface KnownDeclaration {
  readonly decl: JsonObject;
  readonly key: string;
  readonly hash: string;
}

/**
 * Memoizes the expensive, deterministic parts of mediation, per bundle. Agents resend the same
 * tool list on every turn, so:
 * - a whole catalog outcome is looked up by the catalog's exact JSON text and the set of rules
 *   that apply (one native `JSON.stringify` instead of canonicalizing and hashing every tool);
 * - on a catalog miss, schema hashes are looked up per declaration by its JSON text, and a
 *   rule's rewrite of a declaration by (rule, exact input text), so a catalog that changed in
 *   one tool still reuses the work done for the others.
 * Results are identical with or without the memo: keys are exact texts, and every memoized value
 * is a pure function of its key. Memoized values are frozen, since later requests share them.
 * Assumes JSON values (what `JSON.parse` produces); bounded, oldest entries evicted first.
 */
export class MediationMemo {
  private readonly hashes = new Map<string, string>();
  private readonly rewrites = new Map<string, KnownDeclaration | null>();
  private readonly catalogs = new Map<string, Map<string, unknown>>();
  /** The same entries by frozen tool list (see `catalog`), held weakly: they go with the list. */
  private readonly catalogsByList = new WeakMap<object, Map<string, unknown>>();

  constructor(private readonly maxEntries = 4096) {}

  /** False when built with size 0: everything is computed afresh (benchmarks, tests). */
  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  /** The declaration with its key and hash, or undefined when it is not I-JSON or holds U+0000. */
  identify(decl: JsonObject): KnownDeclaration | undefined {
    if (!this.enabled) {
      const hash = hashUncached(decl);
      return hash === undefined ? undefined : { decl, key: '', hash };
    }
    const key = JSON.stringify(decl);
    const hash = this.hashOfKey(key, decl);
    return hash === undefined ? undefined : { decl, key, hash };
  }

  /** `sha256:…` of the canonical declaration, or undefined when it is not I-JSON or holds U+0000. */
  hashOf(decl: JsonObject): string | undefined {
    return this.hashOfKey(JSON.stringify(decl), decl);
  }

  /**
   * The result of applying the rule identified by `ruleKey` to the declaration whose JSON text
   * is `inputKey`; `build` computes it on a miss. Undefined when the result is not I-JSON.
   */
  rewrite(
    ruleKey: string,
    inputKey: string,
    build: () => JsonObject,
  ): KnownDeclaration | undefined {
    if (this.maxEntries === 0) return this.identify(build());
    const memoKey = `${ruleKey}\u0000${inputKey}`;
    const cached = this.rewrites.get(memoKey);
    if (cached !== undefined) return cached ?? undefined;
    const built = this.identify(build());
    // Cache an independent frozen copy: the built object may share parts with the caller's
    // request, which must neither be frozen nor kept alive by the memo.
    const known = built && { ...built, decl: deepFreeze(JSON.parse(built.key) as JsonObject) };
    remember(this.rewrites, memoKey, known ?? null, this.maxEntries);
    return known;
  }

  /**
   * The memoized outcome for a catalog (`catalog.text`, the exact JSON text of its declarations)
   * under `variant` (surface, origins, applicable rules); `compute` runs on a miss and its
   * result is kept frozen. `catalog.list`, when given, is the deep-frozen array whose text
   * `catalog.text` is (an agent's tool list, as the request parser keeps it): the entry is then
   * found by that array's identity, sparing every request that resends the list a comparison of
   * the whole text (tens of KiB) with the stored key.
   */
  catalog<T>(catalog: { text: string; list?: object }, variant: string, compute: () => T): T {
    if (this.maxEntries === 0) return compute();
    const { text, list } = catalog;
    let variants = list === undefined ? undefined : this.catalogsByList.get(list);
    if (variants === undefined) {
      variants = this.catalogs.get(text);
      if (variants === undefined) {
        variants = new Map();
        remember(this.catalogs, text, variants, MAX_CATALOGS);
      }
      if (list !== undefined) this.catalogsByList.set(list, variants);
    }
    if (variants.has(variant)) return variants.get(variant) as T;
    const outcome = deepFreeze(compute());
    variants.set(variant, outcome);
    return outcome;
  }

  get size(): number {
    return this.hashes.size;
  }

  private hashOfKey(key: string, decl: JsonObject): string | undefined {
    if (this.maxEntries === 0) return hashUncached(decl);
    const cached = this.hashes.get(key);
    if (cached !== undefined) return cached;
    const hash = hashUncached(decl);
    if (hash !== undefined) remember(this.hashes, key, hash, this.maxEntries);
    return hash;
  }
}

/** Catalogs are large (every declaration of a request): keep fewer of them. */
const MAX_CATALOGS = 128;

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/**
 * Undefined also for a declaration holding U+0000: the API's declaration store (PostgreSQL)
 * cannot hold it, and a receipt must not name a schema no one can look up. Canonical JSON
 * writes U+0000 as `\u0000`, so one scan of its text finds every candidate; the walk rules out
 * the false alarm of a backslash written before `u0000`.
 */
function hashUncached(declaration: JsonObject): string | undefined {
  const canonical = tryCanonicalize(declaration);
  if (canonical === undefined) return undefined;
  if (canonical.includes('\\u0000') && nulPath(declaration) !== undefined) return undefined;
  return `sha256:${sha256Hex(canonical)}`;
}

/**
 * `compute(key)`, remembered in `cache` when `key` is frozen: a frozen value cannot change, so
 * what was derived from it still holds (memoized catalog outcomes are deep-frozen and shared by
 * every request that sends their catalog). A value that is not frozen is computed every time.
 */
export function derivedFromFrozen<K extends object, V>(
  cache: WeakMap<K, V>,
  key: K,
  compute: (key: K) => V,
): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = compute(key);
  if (Object.isFrozen(key)) cache.set(key, value);
  return value;
}
