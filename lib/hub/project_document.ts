/**
 * The public project document (`GET /api/v1/projects/<slug>`, docs/api.md): a published version's
 * slug, title, version, mode, template and schema (and, in python mode, its source) as JSON, the
 * first thing every configurator fetches. A version's documents never change once published, so
 * each version's document is serialized once per process and served as a coded asset
 * (lib/http/coded_asset.ts): a strong ETag of its bytes, brotli and gzip made once and off the
 * event loop, 304 to `If-None-Match`. A request then costs the project record's read (its current
 * version and title) instead of the version's records, a JSON serialization and a compression per
 * request (docs/performance.md, twentieth session).
 *
 * The cache entry is keyed by partner, slug and version, and checked against the project's
 * `createdAt` and `title`: a project deleted and created again under its slug, or renamed, is
 * served its new document at once, on every hub node.
 */
import type { AssetRequest } from "../http/coded_asset.ts";
import { assetResponse, cachedAsset, CodedAsset } from "../http/coded_asset.ts";
import { AppError } from "../http/problem.ts";
import { versionOf } from "./published_versions.ts";
import { findScopedProject, type KeyLookup, type ProjectScope } from "./project_read.ts";

/** What a request for a project document names, and how it asks for it. */
export interface ProjectDocumentRequest {
  slug: string;
  /** Which partner's project (`?key=` or `?partner=`; neither: the slug alone). */
  scope: ProjectScope;
  /** A named version (`?version=`), or undefined for the current one. */
  version?: number;
  /** Where key records come from (the hub's key cache), else Deno KV. */
  keys?: KeyLookup;
  /** The request's `If-None-Match`, `Accept-Encoding` and method. */
  asset: AssetRequest;
}

const encoder = new TextEncoder();

/**
 * The response for a project document: 200 with the document in the coding the client prefers,
 * or 304. Throws `AppError` as `findScopedProject` does, and `unknown_project_version` when the
 * project has no such (or no) published version.
 *
 * @example
 * ```ts
 * return await projectDocumentResponse(kv, { slug, scope: { key }, asset: assetRequest(req) });
 * ```
 */
export async function projectDocumentResponse(
  kv: Deno.Kv,
  request: ProjectDocumentRequest,
): Promise<Response> {
  const { slug, version } = request;
  const project = await findScopedProject(kv, slug, request.scope, request.keys);
  const wanted = version ?? project.currentVersion;
  const missing = () =>
    new AppError(
      "unknown_project_version",
      `No published project "${slug}"${version ? ` version ${version}` : ""}.`,
    );
  if (wanted === undefined) throw missing();
  const asset = await cachedAsset(
    `project-document:${project.partnerId}/${project.slug}@${wanted}`,
    `${project.createdAt}:${project.title}`,
    async () => {
      const published = await versionOf(kv, project, wanted);
      if (!published) throw missing();
      const document = {
        slug,
        title: project.title,
        version: published.version,
        mode: published.mode,
        template: published.template,
        schema: published.schema,
        // A python-mode version ships its design for the in-browser runtime (docs/design.md).
        ...(published.mode === "python" ? { source: published.source } : {}),
      };
      return await CodedAsset.of(encoder.encode(JSON.stringify(document)), "application/json");
    },
  );
  return await assetResponse(asset, request.asset, {
    // A named version never changes; "current" may move on a publish.
    cacheControl: version ? "public, max-age=31536000, immutable" : "public, max-age=60",
    headers: { "access-control-allow-origin": "*", "access-control-expose-headers": "etag" },
  });
}
