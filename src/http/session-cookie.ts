// The session cookie: its name, reading it from a Cookie header, and the Set-Cookie values
// that open and end it. No Max-Age: it lasts as long as the browser does, and the server
// ends it sooner (idle expiry, sign-out, revoked credential).
export const SESSION_COOKIE = 'wgcp_session';
const VALUE = /^[A-Za-z0-9_-]{43}$/;

/** The session cookie's value, or null when the header has none (or a malformed one). */
export function sessionCookieValue(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (VALUE.test(value)) return value;
  }
  return null;
}

export function sessionSetCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function sessionClearCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** The session cookie, as the OpenAPI document describes it (also single sign-on's, oidc.ts). */
export const SESSION_COOKIE_DOC = { description: 'session cookie `wgcp_session` (HttpOnly, SameSite=Strict, Secure under TLS, Path=/)', schema: { type: 'string' } };
