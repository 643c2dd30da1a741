import { sha256Hex } from '#sha256';
import type { JsonObject } from '../json/json-value.ts';
import { tryCanonicalize } from './tool-schema.ts';

/**
 * Memoizes schema hashes by the declaration's JSON text. Agents resend the same tool list on
 * every turn, and `JSON.stringify` (native) costs well under canonicalizing and hashing, so a
 * hit saves most of the hashing work. Results are identical with or without the cache: the key
 * is the exact JSON text, and only values that canonicalize are cached. Assumes JSON values
 * (what `JSON.parse` produces); bounded, oldest entries evicted first.
 */
export class SchemaHashCache {
  private readonly hashes = new Map<string, string>();

  constructor(private readonly maxEntries = 4096) {}

  /** `sha256:…` of the canonical declaration, or undefined when it is not I-JSON. */
  hashOf(declaration: JsonObject): string | undefined {
    if (this.maxEntries === 0) return hashUncached(declaration);
    const key = JSON.stringify(declaration);
    const cached = this.hashes.get(key);
    if (cached !== undefined) return cached;
    const hash = hashUncached(declaration);
    if (hash === undefined) return undefined;
    if (this.hashes.size >= this.maxEntries) {
      const oldest = this.hashes.keys().next().value;
      if (oldest !== undefined) this.hashes.delete(oldest);
    }
    this.hashes.set(key, hash);
    return hash;
  }

  get size(): number {
    return this.hashes.size;
  }
}

function hashUncached(declaration: JsonObject): string | undefined {
  const canonical = tryCanonicalize(declaration);
  return canonical === undefined ? undefined : `sha256:${sha256Hex(canonical)}`;
}
