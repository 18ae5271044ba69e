/**
 * Cross-site request forgery checks for state-changing requests under /settings and /auth:
 *
 * 1. Fetch metadata and origin: a request whose `Sec-Fetch-Site` is present and not
 *    `same-origin`, or whose `Origin` is present and not the site's origin, is refused; a request
 *    with neither header is refused too (every current browser sends `Origin` on a POST).
 * 2. A synchronizer token: a signed-in request must carry its session's token in the `_csrf` form
 *    field (or the `X-CSRF-Token` header), compared in constant time.
 *
 * The sign-in and sign-up forms have no session yet and rely on (1) alone.
 */
import { timingSafeEqual } from "node:crypto";
import { AppError } from "../http/problem.ts";

/** Methods that never change state and are not checked. */
export const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The name of the hidden form field that carries the token. */
export const CSRF_FIELD = "_csrf";

/** Refuses a cross-site state-changing request (check 1); `siteOrigins` are this site's origins. */
export function assertSameOrigin(headers: Headers, siteOrigins: readonly string[]): void {
  const site = headers.get("sec-fetch-site");
  const origin = headers.get("origin");
  if (site !== null && site !== "same-origin") {
    throw csrf(
      "cross_site",
      `Sec-Fetch-Site is "${site}"; settings accept same-origin requests only.`,
    );
  }
  if (origin !== null && !siteOrigins.includes(origin)) {
    throw csrf(
      "cross_site",
      `The request comes from "${origin.slice(0, 200)}", not from this site.`,
    );
  }
  if (origin === null && site === null) {
    throw csrf("cross_site", "The request has neither an Origin nor a Sec-Fetch-Site header.");
  }
}

/** Refuses a request whose token is missing or not the session's (check 2). */
export function assertCsrfToken(presented: string | null | undefined, expected: string): void {
  if (!presented) {
    throw csrf("missing_token", "The form token is missing; reload the page and retry.");
  }
  const a = new TextEncoder().encode(presented);
  const b = new TextEncoder().encode(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw csrf("bad_token", "The form token is not this session's; reload the page and retry.");
  }
}

function csrf(reason: string, detail: string): AppError {
  return new AppError("csrf_rejected", detail, { extensions: { reason } });
}
