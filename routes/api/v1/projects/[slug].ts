/**
 * GET /api/v1/projects/<slug> — the current (or `?version=n`) template and parameter schema (and
 * the design's Python source for a python-mode project).
 */
import { AppError } from "@/lib/http/problem.ts";
import { getProject } from "@/lib/store/projects.ts";
import { getProjectVersion } from "@/lib/store/project_versions.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async GET(ctx) {
    const slug = ctx.req.param("slug") ?? "";
    const versionParam = ctx.req.query("version");
    let version: number | undefined;
    if (versionParam !== undefined) {
      version = Number(versionParam);
      if (!Number.isSafeInteger(version) || version < 1) {
        throw new AppError("validation_failed", "`version` must be a positive integer.");
      }
    }
    const { kv } = ctx.var.deps;
    const [project, published] = await Promise.all([
      getProject(kv, slug),
      getProjectVersion(kv, slug, version),
    ]);
    if (!project || !published) {
      throw new AppError(
        "unknown_project_version",
        `No published project "${slug}"${version ? ` version ${version}` : ""}.`,
      );
    }
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
