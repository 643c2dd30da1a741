/**
 * Where sign-in returns to: the page (path, query string and fragment) one was on when the
 * session ended or before one signed in. It travels in the sign-in page's own query string
 * (`/sign-in?next=…`), so it survives a reload of the sign-in page; and since anyone can craft
 * that link, only a path on this console's own origin is ever followed (no open redirect).
 */

export const SIGN_IN_PATH = '/sign-in';
const MAX_NEXT_LENGTH = 4096;

export type SignInReason = 'expired';

/** The sign-in URL that comes back to `next` (omitted when it is the landing page). */
export function signInPath(next: string | undefined, reason?: SignInReason): string {
  const params = new URLSearchParams();
  const safe = next === undefined ? undefined : safeReturnPath(next);
  if (safe && safe !== '/') params.set('next', safe);
  if (reason) params.set('reason', reason);
  const query = params.toString();
  return query ? `${SIGN_IN_PATH}?${query}` : SIGN_IN_PATH;
}

/**
 * `raw` as a same-origin path to navigate to, or undefined: protocol-relative (`//evil`),
 * backslash tricks (`/\evil`), absolute URLs, control characters and the sign-in page itself
 * (a loop) are refused.
 */
export function safeReturnPath(raw: string | null | undefined): string | undefined {
  if (!raw || raw.length > MAX_NEXT_LENGTH) return undefined;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(raw)) return undefined;
  const origin = 'https://console.invalid';
  let url: URL;
  try {
    url = new URL(raw, origin);
  } catch {
    return undefined;
  }
  if (url.origin !== origin) return undefined;
  if (url.pathname === SIGN_IN_PATH || url.pathname.startsWith(`${SIGN_IN_PATH}/`)) {
    return undefined;
  }
  return `${url.pathname}${url.search}${url.hash}`;
}
