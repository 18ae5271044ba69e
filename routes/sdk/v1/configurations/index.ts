/** POST /sdk/v1/configurations — the hub signs a token holder's configuration (docs/embedding.md). */
import type { CorsPolicy } from "@/lib/http/cors.ts";
import { readJsonBody } from "@/lib/http/json_body.ts";
import { signConfigurationRequest } from "@/lib/hub/configuration_request.ts";
import { corsEndpoint } from "@/lib/app/cors_endpoint.ts";
import { type Handlers, hubDeps } from "@/lib/app/context.ts";

export const config = { roles: ["hub" as const] };

/** Any origin may preflight; an answer is readable by the verified token's origin only. */
const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["authorization", "content-type"],
  exposeHeaders: ["x-request-id"],
  maxAgeSeconds: 600,
};

export const handler: Handlers = corsEndpoint<{ tokenOrigin?: string }>({
  name: "configuration signing",
  policy: CORS,
  allowPreflight: () => true,
  problemReadable: (_ctx, origin, trace) => origin === trace.tokenOrigin,
  handlers: {
    async POST(ctx, { origin, trace }) {
      const { kv, render } = ctx.get("deps");
      const hub = hubDeps(ctx);
      const revocations = render?.revocations;
      const { configuration, claims } = await signConfigurationRequest({
        kv,
        keyring: hub.keyring,
        isRevoked: revocations ? (c) => revocations.isRevoked(c) : undefined,
        clock: hub.clock,
        productionUrl: `${ctx.get("deps").config.hubUrl}/api/v1/production-files`,
      }, {
        authorization: ctx.req.header("authorization") ?? null,
        origin,
        body: await readJsonBody(ctx.req.raw),
      }, trace);
      const response = Response.json({ configuration, payload: claims }, {
        headers: { "cache-control": "no-store" },
      });
      return { response, readable: true };
    },
  },
});
