import { sha256Hex } from '#sha256';

/** OpenAI and Anthropic share this rule for function/tool names. */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** What a provider accepts as a function name, and how an illegal name is made legal. */
export interface ProviderNameRule {
  /** Whether a name is legal as it is. */
  readonly legal: RegExp;
  /** The characters an alias replaces with `_` (global). */
  readonly illegalChars: RegExp;
  /** Longest legal name. */
  readonly maxLength: number;
  /** Whether a name may start with this character (an alias gets a `_` in front otherwise). */
  readonly validStart?: RegExp;
}

/** OpenAI Chat Completions and Anthropic Messages: `^[a-zA-Z0-9_-]{1,64}$`. */
export const OPENAI_NAME_RULE: ProviderNameRule = {
  legal: PROVIDER_TOOL_NAME,
  illegalChars: /[^a-zA-Z0-9_-]/g,
  maxLength: 64,
};

export function isProviderLegalName(name: string): boolean {
  return PROVIDER_TOOL_NAME.test(name);
}

/**
 * Gives every requested name a provider-legal, unique name. Legal names keep themselves (first
 * come, first served on duplicates — deduplication happens later); illegal ones get a sanitized
 * alias, with a hash of the original name appended when the alias would collide or be too long.
 * Depends only on the list, so the same request always gets the same aliases.
 */
export function assignProviderNames(
  requested: ReadonlyArray<string>,
  rule: ProviderNameRule = OPENAI_NAME_RULE,
): string[] {
  const taken = new Set<string>();
  for (const name of requested) if (rule.legal.test(name)) taken.add(name);
  return requested.map((name) => {
    if (rule.legal.test(name)) return name;
    const alias = aliasFor(name, taken, rule);
    taken.add(alias);
    return alias;
  });
}

function aliasFor(name: string, taken: ReadonlySet<string>, rule: ProviderNameRule): string {
  let sanitized = name.replace(rule.illegalChars, '_') || 'tool';
  if (rule.validStart && !rule.validStart.test(sanitized)) sanitized = `_${sanitized}`;
  const max = rule.maxLength;
  if (sanitized.length <= max && !taken.has(sanitized)) return sanitized;
  const digest = sha256Hex(name);
  for (let length = 8; length <= digest.length; length += 8) {
    const suffix = `_${digest.slice(0, length)}`;
    const candidate = sanitized.slice(0, max - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
  // 2^-256 territory: a counter keeps the promise of uniqueness anyway.
  for (let n = 0; ; n++) {
    const suffix = `_${digest.slice(0, 16)}_${n}`;
    const candidate = sanitized.slice(0, max - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
