/** POST /v1/kernels/<kernel>/render — render a finished DAG for a session-token holder (spec 4.2). */
import { type CorsPolicy, preflightResponse, withCors } from "@/lib/http/cors.ts";
import { readJsonBodyBytes } from "@/lib/http/json_body.ts";
import { readRequestOrigin } from "@/lib/http/origin.ts";
import { problemResponse, toAppError } from "@/lib/http/problem.ts";
import { renderRequest, type RenderTrace } from "@/lib/kernel/render.ts";
import { MAX_RENDER_BODY_BYTES } from "@/lib/kernel/render_request.ts";
import { type Handlers, renderDeps, type RouteConfig } from "@/lib/web/context.ts";

export const config: RouteConfig = { roles: ["kernel"] };

/**
 * Any origin may preflight (the token is checked on the actual request); the actual response is
 * readable cross-origin only when the request's Origin is the verified token's origin.
 */
const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["authorization", "content-type"],
  exposeHeaders: ["x-request-id", "retry-after"],
  maxAgeSeconds: 600,
};

const OK_HEADERS: HeadersInit = [
  ["content-type", "application/json"],
  ["cache-control", "no-store"],
];

export const handler: Handlers = {
  OPTIONS(ctx) {
    const origin = readRequestOrigin(ctx.req.raw.headers);
    return preflightResponse(ctx.req.raw, origin, origin !== null && origin !== "null", CORS);
  },

  async POST(ctx) {
    // ctx.get, not ctx.var: Hono builds a fresh object of every variable on each `ctx.var`.
    const deps = ctx.get("deps");
    const origin = readRequestOrigin(ctx.req.raw.headers);
    const trace: RenderTrace = {};
    try {
      const body = await readJsonBodyBytes(ctx.req.raw, MAX_RENDER_BODY_BYTES);
      const result = await renderRequest(renderDeps(ctx), {
        kernel: ctx.req.param("kernel") ?? "",
        authorization: ctx.req.header("authorization") ?? null,
        origin,
        body,
      }, trace);
      deps.metrics.renders.inc({ outcome: "ok", cache: result.cache });
      deps.usage?.recordRender(trace.claims!.client_id, "ok", result.cache);
      // The scene was serialized once, when it was cached (lib/kernel/render_response_bytes.ts).
      const res = new Response(result.body, { headers: OK_HEADERS });
      return withCors(res, origin, true, CORS);
    } catch (err) {
      const e = toAppError(err);
      deps.metrics.renders.inc({ outcome: e.code, cache: "none" });
      if (trace.claims) deps.usage?.recordRender(trace.claims.client_id, e.code, "none");
      ctx.set("problemCode", e.code);
      if (e.code === "internal_error") ctx.get("log").error("render failed", { error: err });
      const readable = origin !== null && origin === trace.tokenOrigin;
      return withCors(problemResponse(e, ctx.get("requestId")), origin, readable, CORS);
    }
  },
};
