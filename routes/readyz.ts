/** GET /readyz — readiness: Deno KV and (when configured) Redis answer. */
import { checkReadiness } from "@/lib/app/readiness.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async GET(ctx) {
    const report = await checkReadiness(ctx.var.deps);
    return Response.json(report, {
      status: report.status === "ok" ? 200 : 503,
      headers: { "cache-control": "no-store" },
    });
  },
};
