/** POST /api/v1/sdk/session-tokens — mint an `sv1.` session token (spec 4.1), both flows. */
import { type CorsPolicy, preflightResponse, withCors } from "@/lib/http/cors.ts";
import { requestClientIp } from "@/lib/http/client_ip.ts";
import { readJsonBody } from "@/lib/http/json_body.ts";
import { readRequestOrigin } from "@/lib/http/origin.ts";
import { problemResponse, toAppError } from "@/lib/http/problem.ts";
import { mintSessionToken } from "@/lib/hub/mint.ts";
import type { MintResponse } from "@/lib/hub/mint_request.ts";
import { anyKeyListsOrigin } from "@/lib/store/sdk_keys.ts";
import { type Handlers, hubDeps, type RouteConfig, type RouteContext } from "@/lib/web/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

/** Browsers may POST JSON; they may never send `Authorization` (the secret flow is server-only). */
const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["content-type"],
  exposeHeaders: ["ratelimit", "ratelimit-policy", "retry-after", "x-request-id", "date"],
  maxAgeSeconds: 600,
};

/**
 * CORS is granted to origins some key lists — revoked keys included, so a page whose key was
 * revoked reads `key_revoked`; an origin no key ever listed stays blocked (docs/api.md, CORS).
 */
async function corsAllowed(ctx: RouteContext, origin: string | null): Promise<boolean> {
  return origin !== null && await anyKeyListsOrigin(ctx.var.deps.kv, origin);
}

export const handler: Handlers = {
  async OPTIONS(ctx) {
    const origin = readRequestOrigin(ctx.req.raw.headers);
    return preflightResponse(ctx.req.raw, origin, await corsAllowed(ctx, origin), CORS);
  },

  async POST(ctx) {
    const { deps } = ctx.var;
    const origin = readRequestOrigin(ctx.req.raw.headers);
    const authorization = ctx.req.header("authorization") ?? null;
    const flow = authorization === null ? "browser" : "server";
    try {
      const body = await readJsonBody(ctx.req.raw);
      const result = await mintSessionToken(hubDeps(ctx), {
        authorization,
        origin,
        body,
        clientIp: requestClientIp(ctx),
      });
      deps.metrics.mints.inc({ flow, outcome: "ok" });
      const payload: MintResponse = {
        token: result.token,
        expiresAt: result.expiresAt,
        mode: result.mode,
      };
      const res = Response.json(payload, {
        headers: { ...result.headers, "cache-control": "no-store" },
      });
      // A minted token's origin is an allowed origin of its key: no index lookup needed.
      return withCors(res, origin, origin === result.claims.origin, CORS);
    } catch (err) {
      const e = toAppError(err);
      deps.metrics.mints.inc({ flow, outcome: e.code });
      ctx.set("problemCode", e.code);
      if (e.code === "internal_error") ctx.var.log.error("mint failed", { error: err });
      const allowed = await corsAllowed(ctx, origin);
      return withCors(problemResponse(e, ctx.var.requestId), origin, allowed, CORS);
    }
  },
};
