/**
 * Published versions, read from Deno KV once per process: a version's documents never change once
 * published, so the hub's pages and reads that need one (the hosted configurator's page and its
 * form's schema, the demo page's cards, a configuration request, the project document) take it
 * from here after the first read, instead of reading its metadata and chunks and parsing them
 * again on every request. Which version is current is always asked of KV (the project record, one
 * read), so a publish is seen at once on every hub node.
 *
 * Entries are kept per KV handle, keyed by partner, slug, version and the project's `createdAt`
 * (a project made again under its slug starts afresh), at most `MAX_VERSIONS` per handle, least
 * recently used dropped first. The documents are frozen: every caller shares them.
 */
import { LRUCache } from "lru-cache";
import { type ParameterSchema, validateParameterSchema } from "../dag/parameter_schema.ts";
import { getProject, type Project, type ProjectRef } from "../store/projects.ts";
import { getProjectVersion, type ProjectVersion } from "../store/project_versions.ts";

/** Versions kept per KV handle (a version's documents are a few to some tens of KB). */
const MAX_VERSIONS = 256;

/** A published version with the project record it was read under. */
export interface PublishedVersion {
  project: Project;
  version: ProjectVersion;
}

const caches = new WeakMap<Deno.Kv, LRUCache<string, Promise<ProjectVersion | null>>>();
const schemas = new WeakMap<ProjectVersion, ParameterSchema>();

/**
 * The project `ref` and its version `version` (the current one when undefined), or null when the
 * project does not exist or has no such published version.
 *
 * @example
 * ```ts
 * const published = await publishedVersion(kv, { partnerId, slug: "spur-gear" });
 * published?.version.template; // frozen, shared
 * ```
 */
export async function publishedVersion(
  kv: Deno.Kv,
  ref: ProjectRef,
  version?: number,
): Promise<PublishedVersion | null> {
  const project = await getProject(kv, ref);
  if (!project) return null;
  const published = await versionOf(kv, project, version);
  return published ? { project, version: published } : null;
}

/**
 * Version `version` (the current one when undefined) of a project record the caller has read, or
 * null when the project has no such published version.
 *
 * @example
 * ```ts
 * const version = await versionOf(kv, project, 2);
 * ```
 */
export function versionOf(
  kv: Deno.Kv,
  project: Project,
  version?: number,
): Promise<ProjectVersion | null> {
  const wanted = version ?? project.currentVersion;
  if (wanted === undefined) return Promise.resolve(null);
  let cache = caches.get(kv);
  if (!cache) caches.set(kv, cache = new LRUCache({ max: MAX_VERSIONS }));
  const key = `${project.partnerId}/${project.slug}@${wanted}:${project.createdAt}`;
  let read = cache.get(key);
  if (!read) {
    read = getProjectVersion(kv, project, wanted).then((v) => v && deepFreeze(v));
    cache.set(key, read);
    // A failed or empty read is asked again next time (a version published since, say).
    read.then((v) => v ?? cache.delete(key), () => cache.delete(key));
  }
  return read;
}

/**
 * The version's parameter schema, validated once per version (template mode); null for a
 * python-mode version, whose form comes from its design. Throws what `validateParameterSchema`
 * throws for a schema that does not validate.
 *
 * @example
 * ```ts
 * const schema = versionSchema(published.version); // the same object on every call
 * ```
 */
export function versionSchema(version: ProjectVersion): ParameterSchema | null {
  if (version.mode !== "template") return null;
  let schema = schemas.get(version);
  if (!schema) schemas.set(version, schema = validateParameterSchema(version.schema));
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
