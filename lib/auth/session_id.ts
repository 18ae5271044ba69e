/** Session ids: 128 random bits, base64url in the cookie; only their SHA-256 is stored. */

/** A fresh session id (22 base64url characters, 128 bits from the CSPRNG). */
export function newSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}

/** A fresh synchronizer (CSRF) token: 256 random bits, base64url. */
export function newCsrfToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The stored form of a session id: base64url SHA-256 (a KV leak does not reveal live cookies). */
export async function hashSessionId(id: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`session\0${id}`));
  return base64url(new Uint8Array(digest));
}

/** Whether `s` has the shape of a session id (so garbage cookies cost no KV read). */
export function isSessionIdShape(s: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(s);
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
