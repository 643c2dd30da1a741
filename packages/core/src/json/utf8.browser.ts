/**
 * The text of `bytes` when they are valid UTF-8, else undefined. Browser build of `#utf8`: a
 * fatal decoder throws instead of substituting U+FFFD; `utf8.node.ts` must agree on every input.
 */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeUtf8IfValid(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
