/** POST /v1/kernels/<kernel>/render — render a finished DAG for a session-token holder (spec 4.2). */
import type { CorsPolicy } from "@/lib/http/cors.ts";
import { readJsonBodyBytes } from "@/lib/http/json_body.ts";
import { type RenderOutcome, renderRequest, type RenderTrace } from "@/lib/render/render.ts";
import { MAX_RENDER_BODY_BYTES } from "@/lib/render/render_request.ts";
import { corsEndpoint } from "@/lib/app/cors_endpoint.ts";
import { type Handlers, renderDeps, type RouteConfig } from "@/lib/app/context.ts";

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

/** What the render learned: the verified token, and where a served scene came from. */
type Trace = RenderTrace & { cache?: RenderOutcome["cache"] };

export const handler: Handlers = corsEndpoint<Trace>({
  name: "render",
  policy: CORS,
  allowPreflight: () => true,
  problemReadable: (_ctx, origin, trace) => origin === trace.tokenOrigin,
  outcome(ctx, trace, outcome) {
    // ctx.get, not ctx.var: Hono builds a fresh object of every variable on each `ctx.var`.
    const deps = ctx.get("deps");
    const cache = trace.cache ?? "none";
    deps.metrics.renders.inc({ outcome, cache });
    if (trace.claims) deps.usage?.recordRender(trace.claims.client_id, outcome, cache);
  },
  handlers: {
    async POST(ctx, { origin, trace }) {
      const body = await readJsonBodyBytes(ctx.req.raw, MAX_RENDER_BODY_BYTES);
      const result = await renderRequest(renderDeps(ctx), {
        kernel: ctx.req.param("kernel") ?? "",
        authorization: ctx.req.header("authorization") ?? null,
        origin,
        body,
      }, trace);
      trace.cache = result.cache;
      // The scene was serialized once, when it was cached (lib/render/render_response_bytes.ts).
      return { response: new Response(result.body, { headers: OK_HEADERS }), readable: true };
    },
  },
});
