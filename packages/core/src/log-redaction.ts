import { SECRET_PARAMETER_NAME, scrubSecrets } from './secrets.ts';

/**
 * Redaction for what leaves a process as text, log lines above all: a URL's query string
 * (`?token=…&api_key=…`) is where clients most often put credentials, percent-encoded at that.
 */

/** A query string in running text or a URL: from `?` to the fragment or the end of the word. */
const QUERY = /\?[^\s#"'<>]*/g;

const REDACTED = '[REDACTED]';

/**
 * `text` with every credential in it replaced by `[REDACTED]`: query parameters named like one
 * (`token`, `api_key`, `access_token`, `key`, …) or whose decoded name or value is shaped like
 * one (`sk-…`, `tg_…`, `Bearer …`, also when percent-encoded), then whatever {@link scrubSecrets}
 * finds. For a URL, a path, or a message quoting either.
 */
export function redactSecrets(text: string): string {
  const queries = text.includes('?') ? text.replace(QUERY, redactQuery) : text;
  return scrubSecrets(queries);
}

function redactQuery(query: string): string {
  const parts = query.slice(1).split('&');
  return `?${parts.map(redactParameter).join('&')}`;
}

function redactParameter(part: string): string {
  const eq = part.indexOf('=');
  const rawName = eq === -1 ? part : part.slice(0, eq);
  const name = decodeComponent(rawName);
  if (scrubSecrets(name) !== name) return REDACTED;
  if (eq === -1) return part;
  const value = decodeComponent(part.slice(eq + 1));
  const secret = SECRET_PARAMETER_NAME.test(name) || scrubSecrets(value) !== value;
  return secret ? `${rawName}=${REDACTED}` : part;
}

/** Form-style decoding (`+` is a space); text that is not valid percent-encoding is kept as is. */
function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/**
 * One structured (JSON) log line with {@link redactSecrets} applied to every string in it, keys
 * included; the line stays valid JSON. Lines holding nothing to redact (the common case) come
 * back unchanged without being parsed. A line that is not JSON is redacted as text.
 */
export function redactLogLine(line: string): string {
  if (!line.includes('?') && scrubSecrets(line) === line) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return redactSecrets(line);
  }
  const redacted = JSON.stringify(redactStrings(parsed));
  return line.endsWith('\n') ? `${redacted}\n` : redacted;
}

function redactStrings(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactStrings);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [redactSecrets(key), redactStrings(child)]),
  );
}
