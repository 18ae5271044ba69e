/**
 * POST /v1/kernels/<kernel>/export?format=glb|stl|3mf — a configuration's file for a session-token
 * holder (docs/exports.md): a render's body and checks, the file as an attachment.
 */
import type { CorsPolicy } from "@/lib/http/cors.ts";
import { readJsonBodyBytes } from "@/lib/http/json_body.ts";
import { exportRequest, parseExportFormat } from "@/lib/render/export_request.ts";
import { MAX_RENDER_BODY_BYTES } from "@/lib/render/render_request.ts";
import { corsEndpoint } from "@/lib/app/cors_endpoint.ts";
import { RENDER_ENDPOINT_HOOKS, type RenderEndpointTrace } from "@/lib/app/render_endpoint.ts";
import { type Handlers, renderDeps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["kernel"] };

/** As the render route's: any origin may preflight, the token's origin reads the answer. */
const CORS: CorsPolicy = {
  methods: ["POST"],
  allowHeaders: ["authorization", "content-type"],
  exposeHeaders: ["x-request-id", "retry-after", "content-disposition", "x-render-remaining"],
  maxAgeSeconds: 600,
};

export const handler: Handlers = corsEndpoint<RenderEndpointTrace>({
  name: "export",
  policy: CORS,
  ...RENDER_ENDPOINT_HOOKS,
  handlers: {
    async POST(ctx, { origin, trace }) {
      const format = parseExportFormat(ctx.req.query("format") ?? null);
      const body = await readJsonBodyBytes(ctx.req.raw, MAX_RENDER_BODY_BYTES);
      const result = await exportRequest(
        renderDeps(ctx),
        {
          kernel: ctx.req.param("kernel") ?? "",
          authorization: ctx.req.header("authorization") ?? null,
          origin,
          body,
        },
        format,
        trace,
      );
      trace.cache = result.cache;
      const headers = new Headers({
        "content-type": result.contentType,
        "content-disposition": `attachment; filename="${result.filename}"`,
        "cache-control": "no-store",
      });
      if (result.remaining !== null) headers.set("x-render-remaining", String(result.remaining));
      return {
        response: new Response(result.file as Uint8Array<ArrayBuffer>, { headers }),
        readable: true,
      };
    },
  },
});
