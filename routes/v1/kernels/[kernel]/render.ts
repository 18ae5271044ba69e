/** POST /v1/kernels/<kernel>/render — render a finished DAG for a session-token holder (spec 4.2). */
import type { CorsPolicy } from "@/lib/http/cors.ts";
import { readJsonBodyBytes } from "@/lib/http/json_body.ts";
import { leanResponse } from "@/lib/http/lean_response.ts";
import { renderRequest } from "@/lib/render/render.ts";
import { MAX_RENDER_BODY_BYTES } from "@/lib/render/render_request.ts";
import { IDEMPOTENCY_KEY_HEADER } from "@/lib/render/idempotency_key.ts";
import { corsEndpoint } from "@/lib/app/cors_endpoint.ts";
import { RENDER_ENDPOINT_HOOKS, type RenderEndpointTrace } from "@/lib/app/render_endpoint.ts";
import { RENDER_BINARY_TYPE } from "@/lib/dag/render_binary.ts";
import { type Handlers, renderDeps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["kernel"] };

/**
 * Any origin may preflight (the token is checked on the actual request); the actual response is
 * readable cross-origin only when the request's Origin is the verified token's origin.
 */
const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["authorization", "content-type", IDEMPOTENCY_KEY_HEADER],
  exposeHeaders: ["x-request-id", "retry-after"],
  maxAgeSeconds: 600,
};

const TYPES = { json: "application/json", binary: RENDER_BINARY_TYPE } as const;

export const handler: Handlers = corsEndpoint<RenderEndpointTrace>({
  name: "render",
  policy: CORS,
  ...RENDER_ENDPOINT_HOOKS,
  handlers: {
    async POST(ctx, { origin, trace }) {
      const body = await readJsonBodyBytes(ctx.req.raw, MAX_RENDER_BODY_BYTES);
      const result = await renderRequest(renderDeps(ctx), {
        kernel: ctx.req.param("kernel") ?? "",
        authorization: ctx.req.header("authorization") ?? null,
        origin,
        body,
        accept: ctx.req.header("accept") ?? null,
        acceptEncoding: ctx.req.header("accept-encoding") ?? null,
        idempotencyKey: ctx.req.header(IDEMPOTENCY_KEY_HEADER) ?? null,
      }, trace);
      trace.cache = result.cache;
      // The scene was serialized (and compressed) once, when first asked for in this form and
      // coding (lib/render/render_response_bytes.ts); CORS appends `Origin` to this Vary.
      const response = leanResponse(result.body.body, {
        headers: {
          "content-type": TYPES[result.form],
          "cache-control": "no-store",
          vary: "Accept, Accept-Encoding",
        },
      });
      if (result.body.coding) response.headers.set("content-encoding", result.body.coding);
      return { response, readable: true };
    },
  },
});
