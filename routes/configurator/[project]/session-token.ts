/**
 * POST /configurator/<project>/session-token — mints for the hub's own hosted configurator only
 * (same-origin; token bound to the hub's origin; the embedding parent must be an allowed origin of
 * the key). See lib/hub/configurator_mint.ts and docs/embedding.md.
 */
import { readJsonBody } from "@/lib/http/json_body.ts";
import { readRequestOrigin } from "@/lib/http/origin.ts";
import { AppError } from "@/lib/http/problem.ts";
import { mintForConfigurator } from "@/lib/hub/configurator_mint.ts";
import { clientIp, type Handlers, hubDeps } from "@/lib/app/context.ts";

export const config = { roles: ["hub" as const] };

export const handler: Handlers = {
  async POST(ctx) {
    const { deps } = ctx.var;
    const body = await readJsonBody(ctx.req.raw);
    const project = ctx.req.param("project") ?? "";
    if (
      typeof body === "object" && body !== null &&
      (body as Record<string, unknown>).projectId !== project
    ) {
      throw new AppError("validation_failed", "projectId must be the project in the path.");
    }
    const hubOrigins = [new URL(ctx.req.url).origin, new URL(deps.config.publicUrl).origin];
    const result = await mintForConfigurator(hubDeps(ctx), {
      origin: readRequestOrigin(ctx.req.raw.headers),
      hubOrigins,
      body,
      clientIp: clientIp(ctx),
    });
    deps.metrics.mints.inc({ flow: "configurator", outcome: "ok" });
    return Response.json(
      { token: result.token, expiresAt: result.expiresAt, mode: result.mode },
      { headers: { ...result.headers, "cache-control": "no-store" } },
    );
  },
};
