/**
 * The security headers on every answer of the app (lib/app/app.ts sets them through the
 * framework's `finish` hook): no MIME sniffing, a referrer policy, `X-Frame-Options: DENY` unless
 * the answer says who may frame it (its own `X-Frame-Options`, or a page's CSP with
 * `frame-ancestors`, lib/web/document.ts), and HSTS when the app is served over HTTPS.
 */
import type { Context } from "hono";

/**
 * Returns the function that adds the headers to a context's answer; `https` turns on HSTS.
 *
 * @example
 * ```ts
 * const finish = securityHeaders(config.publicUrl.startsWith("https:"));
 * finish(c); // after the route answered
 * ```
 */
export function securityHeaders(https: boolean): (c: Context) => void {
  return (c) => {
    const h = c.res.headers;
    h.set("x-content-type-options", "nosniff");
    h.set("referrer-policy", "strict-origin-when-cross-origin");
    if (!h.has("x-frame-options") && !h.has("content-security-policy")) {
      h.set("x-frame-options", "DENY");
    }
    if (https) h.set("strict-transport-security", "max-age=31536000; includeSubDomains");
  };
}
