/**
 * The session cookie: `HttpOnly; SameSite=Lax; Path=/`. When the site is served over https (the
 * request URL or `PUBLIC_URL` is https) it is `__Host-session` with `Secure` (the prefix makes the
 * browser refuse it without Secure, with a Domain, or with another Path). Over plain http (local
 * development) browsers drop `Secure` cookies and reject the `__Host-` prefix, so the cookie is
 * `session` without `Secure` (docs/settings.md).
 */

/** The cookie name: `__Host-session` over https, `session` over http. */
export function sessionCookieName(secure: boolean): string {
  return secure ? "__Host-session" : "session";
}

/** The `Set-Cookie` value that stores `id` for `maxAgeSeconds`. */
export function sessionCookie(secure: boolean, id: string, maxAgeSeconds: number): string {
  return `${
    sessionCookieName(secure)
  }=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

/** The `Set-Cookie` value that deletes the session cookie. */
export function clearSessionCookie(secure: boolean): string {
  return `${sessionCookieName(secure)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${
    secure ? "; Secure" : ""
  }`;
}

/** The session id from a `Cookie` header, if present. */
export function readSessionCookie(
  secure: boolean,
  cookieHeader: string | null,
): string | undefined {
  if (!cookieHeader) return undefined;
  const name = sessionCookieName(secure);
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
