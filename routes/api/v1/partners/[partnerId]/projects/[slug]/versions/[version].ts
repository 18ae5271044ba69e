/**
 * GET /api/v1/partners/<partnerId>/projects/<slug>/versions/<version|current> — a published
 * version as a kernel node renders it (mode, template, schema, templateHash), public. A numbered
 * version is immutable (cached for a year); `current` is cached for 5 s and revalidated with
 * `If-None-Match` (304). Served by the hub (docs/api.md, Kernel feeds).
 */
import { parseVersionSegment, readProjectVersionFeed } from "@/lib/hub/project_version_feed.ts";
import type { Handlers, RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  async GET(ctx) {
    const version = parseVersionSegment(ctx.req.param("version") ?? "");
    const answer = await readProjectVersionFeed(ctx.var.deps.kv, {
      partnerId: ctx.req.param("partnerId") ?? "",
      slug: ctx.req.param("slug") ?? "",
    }, version);
    const headers = {
      etag: answer.etag,
      "cache-control": answer.cacheControl,
      "access-control-allow-origin": "*",
      "access-control-expose-headers": "etag",
    };
    const inm = ctx.req.header("if-none-match");
    if (inm !== undefined && inm.split(",").some((t) => t.trim() === answer.etag)) {
      return new Response(null, { status: 304, headers });
    }
    return Response.json(answer.document, { headers });
  },
};
