/**
 * GET /api/v1/projects/<slug>[?key=<keyId>|?partner=<partnerId>][&version=n] — the current (or
 * `version`) template and parameter schema (and the design's Python source for a python-mode
 * project) of the partner's project. Slugs are unique per partner: `key` or `partner` names the
 * partner; without either, the slug alone must name one published project (docs/api.md).
 */
import { AppError } from "@/lib/http/problem.ts";
import { assetRequest } from "@/lib/http/coded_asset.ts";
import { projectDocumentResponse } from "@/lib/hub/project_document.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async GET(ctx) {
    // A kernel node holds no KV: the hub answers (lib/render/hub_project_reads.ts).
    const reads = ctx.var.deps.render?.projectReads;
    if (reads) {
      const url = new URL(ctx.req.url);
      return await reads.read(url.pathname + url.search, ctx.req.header("if-none-match"));
    }
    const versionParam = ctx.req.query("version");
    let version: number | undefined;
    if (versionParam !== undefined) {
      version = Number(versionParam);
      if (!Number.isSafeInteger(version) || version < 1) {
        throw new AppError("validation_failed", "`version` must be a positive integer.");
      }
    }
    const { kv, hub } = ctx.var.deps;
    return await projectDocumentResponse(kv, {
      slug: ctx.req.param("slug") ?? "",
      scope: { key: ctx.req.query("key"), partner: ctx.req.query("partner") },
      version,
      keys: hub?.keys,
      asset: assetRequest(ctx.req.raw),
    });
  },
};
