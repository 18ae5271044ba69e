/** GET /metrics — Prometheus text exposition. */
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET(ctx) {
    return new Response(ctx.var.deps.metrics.render(), {
      headers: {
        "content-type": "text/plain; version=0.0.4; charset=utf-8",
        "cache-control": "no-store",
      },
    });
  },
};
