/**
 * The hub's feed of published project versions for kernel nodes
 * (`GET /api/v1/partners/<partnerId>/projects/<slug>/versions/<version|current>`, docs/api.md):
 * exactly what the render path needs (mode, template, schema, templateHash), with a strong ETag.
 * A numbered version never changes, so it is cacheable forever; `current` may move on a publish,
 * so it is cached for `CURRENT_VERSION_TTL_MS` and revalidated with `If-None-Match`.
 */
import { AppError } from "../http/problem.ts";
import { getProjectVersion } from "../store/project_versions.ts";
import { SLUG_PATTERN } from "../store/projects.ts";
import {
  CURRENT_VERSION_TTL_MS,
  type ProjectVersionDocument,
} from "../render/project_templates.ts";

/** One answer of the feed: the document, its strong ETag and its Cache-Control. */
export interface ProjectVersionFeedAnswer {
  document: ProjectVersionDocument;
  etag: string;
  cacheControl: string;
}

/** Cache-Control of a numbered version: it never changes. */
export const IMMUTABLE_VERSION_CACHE = "public, max-age=31536000, immutable";
/** Cache-Control of the current version: what a kernel node may reuse before asking again. */
export const CURRENT_VERSION_CACHE = `public, max-age=${CURRENT_VERSION_TTL_MS / 1000}`;

/**
 * Parses the `<version>` path segment: `current` or a positive integer; anything else is
 * `validation_failed`.
 */
export function parseVersionSegment(segment: string): number | "current" {
  if (segment === "current") return "current";
  const n = Number(segment);
  if (!/^[1-9]\d{0,15}$/.test(segment) || !Number.isSafeInteger(n)) {
    throw new AppError(
      "validation_failed",
      "The version must be `current` or a positive integer.",
      { extensions: { pointer: "/version" } },
    );
  }
  return n;
}

/**
 * The published `version` (or the current one) of the partner's project `slug`. Throws
 * `unknown_project_version` (404) when the partner, project or version does not exist.
 *
 * @example
 * ```ts
 * const a = await readProjectVersionFeed(kv, { partnerId, slug: "wall-bracket" }, "current");
 * a.etag; a.document.templateHash;
 * ```
 */
export async function readProjectVersionFeed(
  kv: Deno.Kv,
  ref: { partnerId: string; slug: string },
  version: number | "current",
): Promise<ProjectVersionFeedAnswer> {
  // Not a slug or an id this hub could have written: nothing to read.
  const stored = SLUG_PATTERN.test(ref.slug) && ref.partnerId.length <= 64
    ? await getProjectVersion(kv, ref, version === "current" ? undefined : version)
    : null;
  if (!stored) {
    throw new AppError(
      "unknown_project_version",
      version === "current"
        ? `The project "${ref.slug}" has no published version.`
        : `The project "${ref.slug}" has no version ${version}.`,
    );
  }
  return {
    document: {
      partnerId: ref.partnerId,
      slug: ref.slug,
      version: stored.version,
      mode: stored.mode,
      template: stored.mode === "python" ? null : stored.template,
      schema: stored.schema,
      templateHash: stored.templateHash,
    },
    // The stored etag hashes template and schema; the version number makes the body's tag.
    etag: `"${stored.etag.slice(0, 43)}.${stored.version}"`,
    cacheControl: version === "current" ? CURRENT_VERSION_CACHE : IMMUTABLE_VERSION_CACHE,
  };
}
