/**
 * Immutable project versions in Deno KV, under the project's partner:
 * `["partner_project_versions", partnerId, slug, version]` and its documents' chunks at
 * `["partner_project_chunks", partnerId, slug, version, i]`. A version holds the template DAG and
 * the parameter schema as published; documents larger than one KV value (64 KiB) are stored in
 * chunks, written in the same atomic operation as the version record so a reader never sees half
 * a version.
 */
import { AppError } from "../http/problem.ts";
import { type Project, projectKey, type ProjectRef } from "./projects.ts";

/** How a project's DAGs are produced: a frozen template (default) or the in-browser Python runtime. */
export type ProjectMode = "template" | "python";

/** One published version (without its documents). */
export interface ProjectVersionMeta {
  slug: string;
  /** The partner whose project this is. */
  partnerId: string;
  version: number;
  mode: ProjectMode;
  /** SHA-256 of the canonical template with parameter values removed. */
  templateHash: string;
  /** SHA-256 of the canonical JSON of template + schema: the HTTP ETag. */
  etag: string;
  createdAt: number;
  chunks: number;
}

/** A published version with its documents. */
export interface ProjectVersion extends ProjectVersionMeta {
  /** The DAG template (template mode); null for a python-mode version. */
  template: unknown;
  schema: unknown;
  /** The design's Python source (python mode); absent for a template-mode version. */
  source?: string | null;
}

const CHUNK = 60_000;

/** The KV key of a version's metadata. */
export function projectVersionKey(ref: ProjectRef, version: number): Deno.KvKey {
  return ["partner_project_versions", ref.partnerId, ref.slug, version];
}

/** The KV key of one chunk of a version's documents. */
export function projectChunkKey(ref: ProjectRef, version: number, index: number): Deno.KvKey {
  return ["partner_project_chunks", ref.partnerId, ref.slug, version, index];
}

/**
 * Stores a new version of the partner's project `slug` (numbered after the current one) and
 * makes it current.
 *
 * @example
 * ```ts
 * const v = await publishProjectVersion(kv, { partnerId, slug, mode: "template", template, schema, templateHash, etag });
 * v.version; // 1, 2, …
 * ```
 */
export async function publishProjectVersion(
  kv: Deno.Kv,
  input: Omit<ProjectVersion, "version" | "createdAt" | "chunks">,
  now = Date.now(),
): Promise<ProjectVersionMeta> {
  const body = JSON.stringify({
    template: input.template,
    schema: input.schema,
    ...(typeof input.source === "string" ? { source: input.source } : {}),
  });
  const parts: string[] = [];
  for (let i = 0; i < body.length; i += CHUNK) parts.push(body.slice(i, i + CHUNK));
  if (parts.length > 64) {
    throw new AppError("body_too_large", "A project version must be under 3.5 MB.");
  }
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<Project>(projectKey(input));
    if (!entry.value) {
      throw new AppError("unknown_project_version", `No project has the slug "${input.slug}".`);
    }
    const version = (entry.value.currentVersion ?? 0) + 1;
    const meta: ProjectVersionMeta = {
      slug: input.slug,
      partnerId: input.partnerId,
      version,
      mode: input.mode,
      templateHash: input.templateHash,
      etag: input.etag,
      createdAt: now,
      chunks: parts.length,
    };
    const op = kv.atomic()
      .check(entry)
      .set(projectKey(input), { ...entry.value, currentVersion: version })
      .set(projectVersionKey(input, version), meta);
    parts.forEach((p, i) => op.set(projectChunkKey(input, version, i), p));
    if ((await op.commit()).ok) return meta;
  }
  throw new Error(`too much contention publishing ${input.slug}`);
}

/** The metadata of one version (or the current one when `version` is undefined), or null. */
export async function getProjectVersionMeta(
  kv: Deno.Kv,
  ref: ProjectRef,
  version?: number,
): Promise<ProjectVersionMeta | null> {
  let v = version;
  if (v === undefined) {
    const project = (await kv.get<Project>(projectKey(ref))).value;
    if (!project?.currentVersion) return null;
    v = project.currentVersion;
  }
  return (await kv.get<ProjectVersionMeta>(projectVersionKey(ref, v))).value;
}

/** A version with its documents (the current one when `version` is undefined), or null. */
export async function getProjectVersion(
  kv: Deno.Kv,
  ref: ProjectRef,
  version?: number,
): Promise<ProjectVersion | null> {
  const meta = await getProjectVersionMeta(kv, ref, version);
  if (!meta) return null;
  let body = "";
  for await (
    const e of kv.list<string>({
      prefix: ["partner_project_chunks", ref.partnerId, ref.slug, meta.version],
    })
  ) body += e.value;
  const docs = JSON.parse(body) as { template: unknown; schema: unknown; source?: string };
  return {
    ...meta,
    partnerId: ref.partnerId,
    // Versions stored before modes existed are template versions.
    mode: meta.mode ?? "template",
    template: docs.template,
    schema: docs.schema,
    source: docs.source ?? null,
  };
}

/** Every version's metadata of a project, oldest first. */
export async function listProjectVersions(
  kv: Deno.Kv,
  ref: ProjectRef,
): Promise<ProjectVersionMeta[]> {
  const out: ProjectVersionMeta[] = [];
  const prefix = ["partner_project_versions", ref.partnerId, ref.slug];
  for await (const e of kv.list<ProjectVersionMeta>({ prefix })) {
    out.push({ ...e.value, partnerId: ref.partnerId });
  }
  return out;
}
