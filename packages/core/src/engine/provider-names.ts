import { sha256Hex } from '#sha256';

/** OpenAI and Anthropic share this rule for function/tool names. */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function isProviderLegalName(name: string): boolean {
  return PROVIDER_TOOL_NAME.test(name);
}

/**
 * Gives every requested name a provider-legal, unique name. Legal names keep themselves (first
 * come, first served on duplicates — deduplication happens later); illegal ones get a sanitized
 * alias, with a hash of the original name appended when the alias would collide or be too long.
 * Depends only on the list, so the same request always gets the same aliases.
 */
export function assignProviderNames(requested: ReadonlyArray<string>): string[] {
  const taken = new Set<string>();
  for (const name of requested) if (isProviderLegalName(name)) taken.add(name);
  return requested.map((name) => {
    if (isProviderLegalName(name)) return name;
    const alias = aliasFor(name, taken);
    taken.add(alias);
    return alias;
  });
}

function aliasFor(name: string, taken: ReadonlySet<string>): string {
  const sanitized = name.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
  if (sanitized.length <= 64 && !taken.has(sanitized)) return sanitized;
  const digest = sha256Hex(name);
  for (let length = 8; length <= digest.length; length += 8) {
    const suffix = `_${digest.slice(0, length)}`;
    const candidate = sanitized.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
  // 2^-256 territory: a counter keeps the promise of uniqueness anyway.
  for (let n = 0; ; n++) {
    const suffix = `_${digest.slice(0, 16)}_${n}`;
    const candidate = sanitized.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
