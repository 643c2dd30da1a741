import { sha256Hex } from '#sha256';
import { CanonicalJsonError, canonicalize } from '../json/canonical-json.ts';

/** A content hash as stored in receipts and resource status: `sha256:` + 64 lowercase hex digits. */
export type Sha256Hash = `sha256:${string}`;

/**
 * Content hash of a JSON value: SHA-256 over its RFC 8785 canonical form, so the hash depends on
 * what the value means, not on key order or number spelling. Throws `CanonicalJsonError` for
 * values JCS cannot represent.
 */
export function hashCanonical(value: unknown): Sha256Hash {
  return `sha256:${sha256Hex(canonicalize(value))}`;
}

/** Content hash of a string exactly as given (its UTF-8 bytes), e.g. an already-canonical text. */
export function hashString(s: string): Sha256Hash {
  return `sha256:${sha256Hex(s)}`;
}

/**
 * For values that come from outside and must be hashed whatever they hold (tool-call arguments
 * a provider returned): the canonical hash when the value is I-JSON, otherwise the hash of its
 * `JSON.stringify` text (which escapes lone surrogates), so hashing never throws.
 */
export function hashLenient(value: unknown): Sha256Hash {
  try {
    return hashCanonical(value);
  } catch (error) {
    if (!(error instanceof CanonicalJsonError)) throw error;
    return hashString(`non-canonical:${JSON.stringify(value)}`);
  }
}
