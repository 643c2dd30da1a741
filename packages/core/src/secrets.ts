/**
 * Query parameter names that carry credentials (`token`, `api_key`, `access_token`, `key`,
 * `X-Amz-Signature`, `client_secret`, …): a whole name, or its last part after `-`, `_` or `.`,
 * optionally after `api`, `access`, `auth`, … (`apikey`, `accessToken`). `monkey` or `keyword`
 * are not credentials.
 */
const CREDENTIAL_NAME = String.raw`(?:[\w.~%-]*[-_.~])?(?:api|access|auth|refresh|client|id|private|session|security)?(?:key|token|secret|password|passwd|pwd|sig|signature|auth|authorization|credentials?)`;
export const SECRET_PARAMETER_NAME = new RegExp(`^${CREDENTIAL_NAME}$`, 'i');

/**
 * Shapes of credentials that must never reach a receipt, a log line or an error: provider API
 * keys, bearer tokens, Toolgate's own tokens (`tg_…`), cloud keys, GitHub, Slack and Google
 * tokens, `key: value` pairs.
 */
const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // A URL's query in running text (`GET /x?token=…&api_key=…`): the value of a credential's name.
  [new RegExp(String.raw`([?&]${CREDENTIAL_NAME}=)[^&#\s"'<>]+`, 'gi'), '$1[REDACTED]'],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, '[REDACTED]'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, '[REDACTED]'],
  [/\btg_[A-Za-z0-9_-]{16,}/g, '[REDACTED]'],
  [/\bAKIA[0-9A-Z]{16}\b/g, '[REDACTED]'],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, '[REDACTED]'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, '[REDACTED]'],
  [/\bAIza[0-9A-Za-z_-]{35}/g, '[REDACTED]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [REDACTED]'],
  [
    /\b(x-api-key|api[_-]?key|authorization|password|passwd|secret)(["']?\s*[:=]\s*["']?)[^\s"',;[]{6,}/gi,
    '$1$2[REDACTED]',
  ],
];

/**
 * Matches wherever any of {@link SECRET_PATTERNS} could: one scan, so the common text (a model
 * name, a session id) is let through without running every pattern. Receipts scrub several
 * values per request.
 */
const MAYBE_SECRET =
  /sk-|tg_|AKIA|gh[pousr]_|github_pat_|xox[abposr]-|AIza|bearer|basic|api[_-]?key|authorization|passw|secret|(?:key|token|pwd|sig|signature|auth|credentials?)=/i;

/** Replaces anything shaped like a credential with `[REDACTED]`. */
export function scrubSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
