/** POST /api/v1/sdk/session-tokens — mint an `sv1.` session token (spec 4.1), both flows. */
import type { CorsPolicy } from "@/lib/http/cors.ts";
import { readJsonBody } from "@/lib/http/json_body.ts";
import { jsonResponse } from "@/lib/http/json_response.ts";
import { mintSessionToken } from "@/lib/hub/mint.ts";
import type { MintResponse } from "@/lib/hub/mint_request.ts";
import { anyKeyListsOrigin } from "@/lib/store/sdk_keys.ts";
import { corsEndpoint } from "@/lib/app/cors_endpoint.ts";
import {
  clientIp,
  type Handlers,
  hubDeps,
  type RouteConfig,
  type RouteContext,
} from "@/lib/app/context.ts";

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
function keyListsOrigin(ctx: RouteContext, origin: string): Promise<boolean> {
  return anyKeyListsOrigin(ctx.get("deps").kv, origin);
}

/** The secret flow sends `Authorization`; the browser flow never does. */
function flow(ctx: RouteContext): "browser" | "server" {
  return ctx.req.header("authorization") === undefined ? "browser" : "server";
}

export const handler: Handlers = corsEndpoint({
  name: "mint",
  policy: CORS,
  allowPreflight: keyListsOrigin,
  problemReadable: keyListsOrigin,
  outcome: (ctx, _trace, outcome) =>
    ctx.get("deps").metrics.mints.inc({ flow: flow(ctx), outcome }),
  handlers: {
    async POST(ctx, { origin }) {
      const body = await readJsonBody(ctx.req.raw);
      const result = await mintSessionToken(hubDeps(ctx), {
        authorization: ctx.req.header("authorization") ?? null,
        origin,
        body,
        clientIp: clientIp(ctx),
      });
      const payload: MintResponse = {
        token: result.token,
        expiresAt: result.expiresAt,
        mode: result.mode,
      };
      const response = jsonResponse(payload, {
        headers: { ...result.headers, "cache-control": "no-store" },
      });
      // A minted token's origin is an allowed origin of its key: no index lookup needed.
      return { response, readable: origin === result.claims.origin };
    },
  },
});
