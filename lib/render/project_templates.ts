/**
 * Published project versions as the render path needs them: template, parsed parameter schema
 * and template hash. Versions are immutable, so a loaded version is cached (bounded); which
 * version is current is re-read at most every `CURRENT_VERSION_TTL_MS`.
 */
import { LRUCache } from "lru-cache";
import { AppError } from "../http/problem.ts";
import {
  getProjectVersion,
  getProjectVersionMeta,
  type ProjectMode,
} from "../store/project_versions.ts";
import type { ProjectRef } from "../store/projects.ts";
import type { Dag } from "../dag/dag_types.ts";
import { type ParameterSchema, validateParameterSchema } from "../dag/parameter_schema.ts";

/** How stale the "current version" of a project may be on a render node, in milliseconds. */
export const CURRENT_VERSION_TTL_MS = 5000;

/** One project version ready for rendering. */
export interface LoadedTemplate {
  partnerId: string;
  slug: string;
  version: number;
  mode: ProjectMode;
  /** The template; null for a python-mode version (it has none). */
  template: Dag | null;
  schema: ParameterSchema;
  templateHash: string;
}

/** Loads and caches project versions from Deno KV. */
export class ProjectTemplates {
  readonly #kv: Deno.Kv;
  readonly #versions = new LRUCache<string, LoadedTemplate>({ max: 500 });
  // ttlResolution 0: read the clock per get instead of arming a timer per millisecond (hit path).
  readonly #current = new LRUCache<string, number>({
    max: 5000,
    ttl: CURRENT_VERSION_TTL_MS,
    ttlResolution: 0,
  });

  /** Reads the project records and versions (lib/store/project_versions.ts) from `kv`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * The given version of the partner's project (the current one when `version` is undefined):
   * the token's `partner` and `project` claims name it.
   */
  async get(ref: ProjectRef, version?: number): Promise<LoadedTemplate> {
    const { slug } = ref;
    // Slugs are unique per partner only; a partner id never contains "/".
    const id = `${ref.partnerId}/${slug}`;
    let v = version ?? this.#current.get(id);
    if (v === undefined) {
      const meta = await getProjectVersionMeta(this.#kv, ref);
      if (!meta) throw notFound(slug);
      v = meta.version;
      this.#current.set(id, v);
    }
    const key = `${id}@${v}`;
    const cached = this.#versions.get(key);
    if (cached) return cached;
    const stored = await getProjectVersion(this.#kv, ref, v);
    if (!stored) throw notFound(slug, version);
    const loaded: LoadedTemplate = {
      partnerId: ref.partnerId,
      slug,
      version: stored.version,
      mode: stored.mode,
      // Both documents were validated when they were published.
      template: stored.mode === "python" ? null : stored.template as Dag,
      schema: validateParameterSchema(stored.schema),
      templateHash: stored.templateHash,
    };
    this.#versions.set(key, loaded);
    return loaded;
  }
}

function notFound(slug: string, version?: number): AppError {
  return new AppError(
    "unknown_project_version",
    version === undefined
      ? `The project "${slug}" has no published version.`
      : `The project "${slug}" has no version ${version}.`,
  );
}
