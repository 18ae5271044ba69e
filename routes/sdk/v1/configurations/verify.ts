/**
 * POST /sdk/v1/configurations/verify — checks a signed configuration against the hub's published
 * keys (for partners who would rather not run a JOSE library). 200 `{valid: true, payload}` or
 * 200 `{valid: false, reason}`; a body without a `configuration` string is 422.
 */
import { readJsonBody } from "@/lib/http/json_body.ts";
import { AppError } from "@/lib/http/problem.ts";
import { ConfigurationError, verifyConfiguration } from "@/lib/hub/configuration_signature.ts";
import { toJwks } from "@/lib/token/jwks.ts";
import { type Handlers, hubDeps } from "@/lib/app/context.ts";

export const config = { roles: ["hub" as const] };

export const handler: Handlers = {
  async POST(ctx) {
    const body = await readJsonBody(ctx.req.raw) as Record<string, unknown> | null;
    const configuration = body?.configuration;
    if (typeof configuration !== "string") {
      throw new AppError("validation_failed", 'Send {"configuration": "<compact JWS>"}.', {
        extensions: { errors: [{ pointer: "/configuration", detail: "must be a string" }] },
      });
    }
    const hub = hubDeps(ctx);
    const jwks = toJwks(await hub.signingKeys.publishable());
    try {
      const payload = await verifyConfiguration(configuration, jwks as never, { now: hub.clock() });
      return Response.json({ valid: true, payload }, { headers: { "cache-control": "no-store" } });
    } catch (err) {
      if (err instanceof ConfigurationError) {
        return Response.json({ valid: false, reason: err.reason }, {
          headers: { "cache-control": "no-store" },
        });
      }
      throw err;
    }
  },
};
