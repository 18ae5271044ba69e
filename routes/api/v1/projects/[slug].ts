/**
 * GET /api/v1/projects/<slug>[?key=<keyId>|?partner=<partnerId>][&version=n] — the current (or
 * `version`) template and parameter schema (and the design's Python source for a python-mode
 * project) of the partner's project. Slugs are unique per partner: `key` or `partner` names the
 * partner; without either, the slug alone must name one published project (docs/api.md).
 */
import { AppError } from "@/lib/http/problem.ts";
import { readPublishedProject } from "@/lib/hub/project_read.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async GET(ctx) {
    // A kernel node holds no KV: the hub answers (lib/render/hub_project_reads.ts).
    const reads = ctx.var.deps.render?.projectReads;
    if (reads) {
      const url = new URL(ctx.req.url);
      return await reads.read(url.pathname + url.search, ctx.req.header("if-none-match"));
    }
    const slug = ctx.req.param("slug") ?? "";
    const versionParam = ctx.req.query("version");
    let version: number | undefined;
    if (versionParam !== undefined) {
      version = Number(versionParam);
      if (!Number.isSafeInteger(version) || version < 1) {
        throw new AppError("validation_failed", "`version` must be a positive integer.");
      }
    }
    const { kv, hub } = ctx.var.deps;
    const { project, published } = await readPublishedProject(kv, slug, {
      key: ctx.req.query("key"),
      partner: ctx.req.query("partner"),
    }, { version, keys: hub?.keys });
    const etag = `"${published.etag.slice(0, 32)}-${published.version}"`;
    const headers = {
      etag,
      // A named version never changes; "current" may move on a publish.
      "cache-control": version ? "public, max-age=31536000, immutable" : "public, max-age=60",
      "access-control-allow-origin": "*",
      "access-control-expose-headers": "etag",
    };
    if (ctx.req.header("if-none-match") === etag) {
      return new Response(null, { status: 304, headers });
    }
    return Response.json({
      slug,
      title: project.title,
      version: published.version,
      mode: published.mode,
      template: published.template,
      schema: published.schema,
      // A python-mode version ships its design for the in-browser runtime (docs/design.md).
      ...(published.mode === "python" ? { source: published.source } : {}),
    }, { headers });
  },
};
