/**
 * CORS for credential-free, origin-bound endpoints. The allow decision is the caller's (an origin
 * allowlist lookup); this module only shapes headers: the exact origin is echoed (never `*`),
 * `Vary: Origin` always, no credentials, a bounded preflight max-age, and a preflight asking for a
 * header outside the policy (say `authorization`) gets no allow-origin at all.
 */

/** What an endpoint lets a cross-origin browser do. */
export interface CorsPolicy {
  methods: readonly string[];
  /** Lowercase request header names a browser may send. */
  allowHeaders: readonly string[];
  /** Response headers a browser script may read. */
  exposeHeaders?: readonly string[];
  /** Seconds a preflight may be cached (browsers cap it anyway: Chromium at 2 h). */
  maxAgeSeconds: number;
}

/** Whether the preflight's requested method and headers are inside `policy`. */
export function preflightWithinPolicy(req: Request, policy: CorsPolicy): boolean {
  const method = req.headers.get("access-control-request-method");
  if (!method || !policy.methods.includes(method.toUpperCase())) return false;
  const asked = (req.headers.get("access-control-request-headers") ?? "")
    .split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);
  return asked.every((h) => policy.allowHeaders.includes(h));
}

/**
 * The answer to a preflight: 204 with allow headers when `allowed` and within policy, else 204
 * without `Access-Control-Allow-Origin` (the browser then blocks the actual request).
 */
export function preflightResponse(
  req: Request,
  origin: string | null,
  allowed: boolean,
  policy: CorsPolicy,
): Response {
  const headers = new Headers({
    vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
  });
  if (origin && allowed && preflightWithinPolicy(req, policy)) {
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-allow-methods", policy.methods.join(", "));
    headers.set("access-control-allow-headers", policy.allowHeaders.join(", "));
    headers.set("access-control-max-age", String(policy.maxAgeSeconds));
  }
  return new Response(null, { status: 204, headers });
}

/** Adds the actual-response CORS headers to `res` (echo only when `allowed`). */
export function withCors(
  res: Response,
  origin: string | null,
  allowed: boolean,
  policy: CorsPolicy,
): Response {
  res.headers.append("vary", "Origin");
  if (origin && allowed) {
    res.headers.set("access-control-allow-origin", origin);
    if (policy.exposeHeaders?.length) {
      res.headers.set("access-control-expose-headers", policy.exposeHeaders.join(", "));
    }
  }
  return res;
}
