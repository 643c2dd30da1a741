import {
  DEFAULT_REDACTED_KEYS,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  redactValue,
  scrubSecrets,
  setJsonKey,
} from '@toolgate/core';

/**
 * The arguments of an approval request as the API stores them. The gateway has redacted them
 * already; this is the second line, the same the receipts get: the always-redacted keys
 * (`token`, `password`, …), and credential-shaped text in any key or value (`sk-…`, `Bearer …`)
 * replaced with `[REDACTED]`. U+0000, which a PostgreSQL jsonb string cannot hold, becomes
 * U+FFFD. The input is not changed.
 */
export function scrubApprovalArguments(value: JsonValue): JsonValue {
  return scrubText(redactValue(value, DEFAULT_REDACTED_KEYS).value);
}

function scrubText(node: JsonValue): JsonValue {
  if (typeof node === 'string') return storableText(node);
  if (Array.isArray(node)) return node.map(scrubText);
  if (!isJsonObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(node)) {
    setJsonKey(out, storableText(key), scrubText(child as JsonValue));
  }
  return out;
}

function storableText(text: string): string {
  return scrubSecrets(text.includes('\u0000') ? text.replaceAll('\u0000', '\ufffd') : text);
}
