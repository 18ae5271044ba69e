/** GET /healthz — liveness: the process is up and serving. */
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET(ctx) {
    return Response.json({ status: "ok", role: ctx.var.deps.config.role }, {
      headers: { "cache-control": "no-store" },
    });
  },
};
