/**
 * `POST /v1/kernels/<kernel>/export?format=glb|stl|3mf` (docs/exports.md): a configuration's file
 * for a session-token holder. The request is a render's (same body, same headers) and goes
 * through the render's checks and payment (`admitRender`, one code path), plus one gate of its
 * own: the token's key must allow the browser flow this format (a refusal costs nothing). The
 * file is built on a render worker from the exact geometry and cached by format and render cache
 * key in L1/L2 (export_cache.ts).
 */
import { AppError } from "../http/problem.ts";
import {
  EXPORT_FORMAT_INFO,
  EXPORT_FORMATS,
  type ExportFormat,
  exportFormatsOf,
  isExportFormat,
  type KeyExportFormats,
} from "../dag/export_format.ts";
import type { CacheLevel } from "../dag/render_response.ts";
import type { DagSource } from "../kernel/worker_protocol.ts";
import type { DagLimits } from "../dag/dag_limits.ts";
import {
  admitRender,
  refundUnserved,
  type RenderDeps,
  type RenderInput,
  type RenderTenant,
  type RenderTrace,
} from "./render.ts";
import type { ExportCache } from "./export_cache.ts";

/** What an export needs besides the render pipeline's dependencies. */
export interface ExportDeps extends RenderDeps {
  exports: Pick<ExportCache, "getOrBuild">;
  /** Evaluates on a worker and builds the file there (WorkerPool.exportFile). */
  exportFile(
    dag: DagSource,
    format: ExportFormat,
    title: string,
    limits?: Partial<DagLimits>,
    tenant?: RenderTenant,
  ): Promise<Uint8Array>;
  /** A key's settings as far as exports read them (null: no such key). */
  keySettings: {
    get(keyId: string): Promise<{ exportFormats?: Partial<KeyExportFormats> } | null>;
  };
}

/** An export file and how to serve it. */
export interface ExportOutcome {
  file: Uint8Array;
  format: ExportFormat;
  contentType: string;
  /** `<project>-v<version>-<first 12 hex of the DAG hash>.<ext>`. */
  filename: string;
  cache: CacheLevel;
  /** Renders left on the token after this export (null: unlimited). */
  remaining: number | null;
}

/**
 * The `format` query value checked; throws `unknown_export_format`.
 *
 * @example
 * ```ts
 * const format = parseExportFormat(new URL(req.url).searchParams.get("format"));
 * ```
 */
export function parseExportFormat(value: string | null): ExportFormat {
  if (isExportFormat(value)) return value;
  throw new AppError(
    "unknown_export_format",
    value === null
      ? `Name the format: ?format=${EXPORT_FORMATS.join("|")}.`
      : `There is no export format "${value}"; use one of: ${EXPORT_FORMATS.join(", ")}.`,
    { extensions: { formats: [...EXPORT_FORMATS] } },
  );
}

/**
 * Throws `export_format_not_allowed` unless `formats[flow]` includes `format`.
 *
 * @example
 * ```ts
 * assertExportAllowed(exportFormatsOf(key), "server", "3mf");
 * ```
 */
export function assertExportAllowed(
  formats: KeyExportFormats,
  flow: keyof KeyExportFormats,
  format: ExportFormat,
): void {
  const allowed = formats[flow];
  if (allowed.includes(format)) return;
  const who = flow === "browser"
    ? "with a session token (the browser flow)"
    : "with the key's secret (the server flow)";
  const list = allowed.length ? allowed.join(", ") : "none";
  throw new AppError(
    "export_format_not_allowed",
    `This key does not allow ${format} exports ${who}; it allows: ${list}. ` +
      "The key's owner can change this in the key's settings (Export formats).",
    { extensions: { format, flow, allowed: [...allowed] } },
  );
}

/**
 * Runs the export of one request.
 *
 * @example
 * ```ts
 * const out = await exportRequest(deps, { kernel, authorization, origin, body }, "glb", trace);
 * ```
 */
export async function exportRequest(
  deps: ExportDeps,
  input: RenderInput,
  format: ExportFormat,
  trace: RenderTrace,
): Promise<ExportOutcome> {
  const admitted = await admitRender(deps, input, trace, {
    allow: async (claims) => {
      const key = await deps.keySettings.get(claims.client_id);
      assertExportAllowed(exportFormatsOf(key), "browser", format);
    },
  });
  const { claims, checked } = admitted;
  let built: { file: Uint8Array; cache: CacheLevel };
  try {
    built = await deps.exports.getOrBuild(
      format,
      checked.cacheKey,
      () =>
        deps.exportFile(admitted.dag(), format, claims.project, admitted.limits, admitted.tenant),
    );
  } catch (err) {
    await refundUnserved(deps, claims, err, admitted);
    throw err;
  }
  return {
    file: built.file,
    format,
    contentType: EXPORT_FORMAT_INFO[format].contentType,
    filename: exportFilename(claims.project, checked.version, checked.dagHash, format),
    cache: built.cache,
    remaining: admitted.spend.remaining,
  };
}

/** The download name of a configuration's file. */
export function exportFilename(
  project: string,
  version: number,
  dagHash: string,
  format: ExportFormat,
): string {
  const safe = project.replace(/[^A-Za-z0-9._-]/g, "_");
  return `${safe}-v${version}-${dagHash.slice(0, 12)}.${EXPORT_FORMAT_INFO[format].extension}`;
}
