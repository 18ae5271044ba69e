/**
 * POST /v1/kernels/<kernel>/ar-ticket — the GLB export of a configuration for a session-token
 * holder (the export's body, checks and unit of budget), answered as a short-lived URL that needs
 * no token, for Android's Scene Viewer (docs/security.md, AR tickets).
 */
import type { CorsPolicy } from "@/lib/http/cors.ts";
import { readJsonBodyBytes } from "@/lib/http/json_body.ts";
import { exportRequest } from "@/lib/render/export_request.ts";
import { IDEMPOTENCY_KEY_HEADER } from "@/lib/render/idempotency_key.ts";
import { MAX_RENDER_BODY_BYTES } from "@/lib/render/render_request.ts";
import { corsEndpoint } from "@/lib/app/cors_endpoint.ts";
import { RENDER_ENDPOINT_HOOKS, type RenderEndpointTrace } from "@/lib/app/render_endpoint.ts";
import { type Handlers, renderDeps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["kernel"] };

/** As the export route's: any origin may preflight, the token's origin reads the answer. */
const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["authorization", "content-type", IDEMPOTENCY_KEY_HEADER],
  exposeHeaders: ["x-request-id", "retry-after", "x-render-remaining"],
  maxAgeSeconds: 600,
};

export const handler: Handlers = corsEndpoint<RenderEndpointTrace>({
  name: "ar-ticket",
  policy: CORS,
  ...RENDER_ENDPOINT_HOOKS,
  handlers: {
    async POST(ctx, { origin, trace }) {
      const kernel = ctx.req.param("kernel") ?? "";
      const body = await readJsonBodyBytes(ctx.req.raw, MAX_RENDER_BODY_BYTES);
      const render = renderDeps(ctx);
      const result = await exportRequest(
        render,
        {
          kernel,
          authorization: ctx.req.header("authorization") ?? null,
          origin,
          body,
          // A retry with the same key (say after a 503 storing the ticket) does not pay again.
          idempotencyKey: ctx.req.header(IDEMPOTENCY_KEY_HEADER) ?? null,
        },
        "glb",
        trace,
      );
      trace.cache = result.cache;
      const { ticket, expiresAt } = await render.arTickets.issue(result.file);
      const base = ctx.get("deps").config.kernelUrl;
      const headers = new Headers({ "cache-control": "no-store" });
      if (result.remaining !== null) headers.set("x-render-remaining", String(result.remaining));
      return {
        response: Response.json(
          { url: `${base}/v1/kernels/${kernel}/ar/${ticket}.glb`, expiresAt },
          { headers },
        ),
        readable: true,
      };
    },
  },
});
