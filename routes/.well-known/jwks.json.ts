/** GET /.well-known/jwks.json — the hub's Ed25519 public keys (current and still-valid retired). */
import { toJwks } from "@/lib/token/jwks.ts";
import { type Handlers, hubDeps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  async GET(ctx) {
    const jwks = toJwks(await hubDeps(ctx).signingKeys.publishable());
    return Response.json(jwks, {
      headers: {
        // Short enough that a rotation propagates quickly; verifiers refetch on an unknown kid.
        "cache-control": "public, max-age=300",
        "access-control-allow-origin": "*",
      },
    });
  },
};
