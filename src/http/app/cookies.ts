/** The cookie of a signed-in browser (its value is the session token; the database keeps its hash). */
export const SESSION_COOKIE = 'termin_session';
/** A random value the sign-in form's CSRF token is bound to, before there is a session. */
export const NONCE_COOKIE = 'termin_nonce';
/** The language the member chose with the switch, over Accept-Language. */
export const LANG_COOKIE = 'termin_lang';
/** The /app page a signed-out browser asked for, to land on once the e-mailed link signs it in. */
export const RETURN_COOKIE = 'termin_return';

/**
 * A path sign-in may send the browser back to: a page of this app (`/app`, `/app/meetings/…`,
 * with a plain query), never another site (`//evil.example`, `/\evil`, `https://…`), a `..`
 * way out of /app, or the sign-in pages themselves. Anything else is null: the browser goes to /app.
 */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 500) return null;
  if (!/^\/app(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*(\?[A-Za-z0-9._~=&%-]*)?$/.test(value)) return null;
  if (/^\/app\/(login|logout|oauth)(\/|\?|$)/.test(value)) return null;
  return value;
}

/** `a=1; b=2` → { a: '1', b: '2' }; malformed pairs are skipped, the first of a repeated name wins. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name in cookies) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      // not percent-encoded as we write them: not ours
    }
  }
  return cookies;
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  secure: boolean;
}

/**
 * A cookie only the app's paths receive, never readable by scripts (HttpOnly), not sent on
 * another site's form posts or subresource requests (SameSite=Lax), Secure on https.
 */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  return [`${name}=${encodeURIComponent(value)}`, 'Path=/app', `Max-Age=${options.maxAge}`, 'HttpOnly', 'SameSite=Lax', ...(options.secure ? ['Secure'] : [])].join('; ');
}
