/** Security headers on every response; pages add a CSP with a nonce (lib/web/document.ts). */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "@/lib/app/context.ts";

const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const h = c.res.headers;
  h.set("x-content-type-options", "nosniff");
  h.set("referrer-policy", "strict-origin-when-cross-origin");
  if (!h.has("x-frame-options") && !h.has("content-security-policy")) {
    h.set("x-frame-options", "DENY");
  }
  // c.get, not c.var: `c.var` copies every variable into a new object on each access.
  if (c.get("deps").config.publicUrl.startsWith("https:")) {
    h.set("strict-transport-security", "max-age=31536000; includeSubDomains");
  }
};

export const handler = securityHeaders;
