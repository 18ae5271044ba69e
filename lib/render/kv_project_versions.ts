/**
 * Published project versions read straight from Deno KV (lib/store/project_versions.ts): the
 * `ProjectVersionSource` of a process that holds the store (`ROLE=all` or `hub`).
 */
import { getProjectVersion, getProjectVersionMeta } from "../store/project_versions.ts";
import type { ProjectRef } from "../store/projects.ts";
import type {
  CurrentVersion,
  ProjectVersionDocument,
  ProjectVersionSource,
} from "./project_templates.ts";

/** Project versions from `kv`. */
export class KvProjectVersions implements ProjectVersionSource {
  readonly #kv: Deno.Kv;

  /** Reads the project records and versions of `kv`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** The current version's number (its documents are read by `version`). */
  async current(ref: ProjectRef): Promise<CurrentVersion | null> {
    const meta = await getProjectVersionMeta(this.#kv, ref);
    return meta ? { version: meta.version } : null;
  }

  /** Version `version` with its documents, or null. */
  async version(ref: ProjectRef, version: number): Promise<ProjectVersionDocument | null> {
    const stored = await getProjectVersion(this.#kv, ref, version);
    if (!stored) return null;
    return {
      partnerId: ref.partnerId,
      slug: ref.slug,
      version: stored.version,
      mode: stored.mode,
      template: stored.template,
      schema: stored.schema,
      templateHash: stored.templateHash,
    };
  }
}
