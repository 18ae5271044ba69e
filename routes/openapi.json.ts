/** GET /openapi.json — the OpenAPI 3.1 description of the HTTP API. */
import { openApiDocument } from "@/lib/app/openapi.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET(ctx) {
    return Response.json(openApiDocument(ctx.var.deps.config), {
      headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" },
    });
  },
};
