import { Buffer, isUtf8 } from 'node:buffer';

/**
 * The text of `bytes` when they are valid UTF-8, else undefined. Node build of `#utf8`: simdutf
 * validates without copying, then one decode; `utf8.browser.ts` must agree on every input.
 */
export function decodeUtf8IfValid(bytes: Uint8Array): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
