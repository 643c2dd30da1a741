/**
 * Response headers every Toolgate HTTP surface a browser may load sends: the API (and its
 * `/docs` page) and the console. One list, so the two cannot drift apart. Pure data, safe in the
 * browser bundle too; each server sets them on every response, errors included.
 *
 * Not here: `Strict-Transport-Security`, which belongs to whatever terminates TLS in front of
 * them (both speak plain HTTP on loopback).
 */

/** The API: JSON, plus one self-contained HTML page (`/docs`) with an inline script. */
export const API_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The console: a built single-page app (scripts from its own origin only) calling the API there. */
export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; " +
  "form-action 'self'";

/**
 * The headers, with the given Content-Security-Policy. `noStore` adds `Cache-Control: no-store`
 * for responses that may carry credentials (the API issues tokens); leave it off for a console's
 * static, fingerprinted assets.
 */
export function securityHeaders(options: {
  contentSecurityPolicy: string;
  noStore?: boolean;
}): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'content-security-policy': options.contentSecurityPolicy,
    ...(options.noStore ? { 'cache-control': 'no-store' } : {}),
  };
}
