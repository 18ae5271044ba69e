/**
 * GET /readyz — readiness: 200 when the process serves (`ok`, or `degraded` with `warnings`), 503
 * when it cannot (lib/app/readiness.ts says which is which).
 */
import { checkReadiness } from "@/lib/app/readiness.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async GET(ctx) {
    const report = await checkReadiness(ctx.var.deps);
    return Response.json(report, {
      status: report.status === "unavailable" ? 503 : 200,
      headers: { "cache-control": "no-store" },
    });
  },
};
