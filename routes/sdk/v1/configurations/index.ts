/** POST /sdk/v1/configurations — the hub signs a token holder's configuration (docs/embedding.md). */
import { type CorsPolicy, preflightResponse, withCors } from "@/lib/http/cors.ts";
import { readJsonBody } from "@/lib/http/json_body.ts";
import { readRequestOrigin } from "@/lib/http/origin.ts";
import { problemResponse, toAppError } from "@/lib/http/problem.ts";
import { signConfigurationRequest } from "@/lib/hub/configuration_request.ts";
import { type Handlers, hubDeps } from "@/lib/web/context.ts";

export const config = { roles: ["hub" as const] };

const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["authorization", "content-type"],
  exposeHeaders: ["x-request-id"],
  maxAgeSeconds: 600,
};

export const handler: Handlers = {
  OPTIONS(ctx) {
    const origin = readRequestOrigin(ctx.req.raw.headers);
    return preflightResponse(ctx.req.raw, origin, origin !== null && origin !== "null", CORS);
  },
  async POST(ctx) {
    const { deps } = ctx.var;
    const origin = readRequestOrigin(ctx.req.raw.headers);
    const trace: { tokenOrigin?: string } = {};
    try {
      const hub = hubDeps(ctx);
      const revocations = deps.render?.revocations;
      const { configuration, claims } = await signConfigurationRequest({
        kv: deps.kv,
        keyring: hub.keyring,
        isRevoked: revocations ? (c) => revocations.isRevoked(c) : undefined,
        clock: hub.clock,
      }, {
        authorization: ctx.req.header("authorization") ?? null,
        origin,
        body: await readJsonBody(ctx.req.raw),
      }, trace);
      const res = Response.json({ configuration, payload: claims }, {
        headers: { "cache-control": "no-store" },
      });
      return withCors(res, origin, true, CORS);
    } catch (err) {
      const e = toAppError(err);
      ctx.set("problemCode", e.code);
      const readable = origin !== null && origin === trace.tokenOrigin;
      return withCors(problemResponse(e, ctx.var.requestId), origin, readable, CORS);
    }
  },
};
