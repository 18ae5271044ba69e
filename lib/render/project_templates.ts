/**
 * Published project versions as the render path needs them: template, parsed parameter schema
 * and template hash. They come from a `ProjectVersionSource`: Deno KV where the process holds the
 * store (`ROLE=all|hub`, lib/render/kv_project_versions.ts), the hub over HTTP on a kernel node
 * (lib/render/hub_project_versions.ts). Versions are immutable, so a loaded version is cached
 * (bounded); which version is current is asked again once `CURRENT_VERSION_TTL_MS` has passed.
 * When that question fails (the hub is unreachable), the version last known current keeps being
 * served: a publish reaches the node once the source answers again.
 */
import { LRUCache } from "lru-cache";
import { AppError } from "../http/problem.ts";
import type { ProjectMode } from "../store/project_versions.ts";
import type { ProjectRef } from "../store/projects.ts";
import type { Dag } from "../dag/dag_types.ts";
import { type ParameterSchema, validateParameterSchema } from "../dag/parameter_schema.ts";
import { SingleFlight } from "../cache/single_flight.ts";

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

/** A published version as a source hands it over (the hub's kernel feed serves this JSON). */
export interface ProjectVersionDocument {
  partnerId: string;
  slug: string;
  version: number;
  mode: ProjectMode;
  /** The DAG template; null for a python-mode version. */
  template: unknown;
  schema: unknown;
  templateHash: string;
}

/** What a source says about the current version of a project. */
export interface CurrentVersion {
  version: number;
  /** A validator of the answer (the HTTP ETag), handed back on the next question. */
  tag?: string | null;
  /** The version's documents, when the answer carried them. */
  document?: ProjectVersionDocument;
}

/** Where published versions come from. */
export interface ProjectVersionSource {
  /**
   * The current version of `ref`, or null when it has none. `previous` is the last answer for
   * `ref`; a source that can tell "unchanged" cheaply answers with it. Rejects when unsure.
   */
  current(ref: ProjectRef, previous?: CurrentVersion): Promise<CurrentVersion | null>;
  /** Version `version` of `ref`, or null when there is no such version. Rejects when unsure. */
  version(ref: ProjectRef, version: number): Promise<ProjectVersionDocument | null>;
}

interface CurrentEntry {
  answer: CurrentVersion;
  /** When the source last confirmed it (the `elapsed` clock). */
  checkedAt: number;
}

/** Loads and caches project versions from a `ProjectVersionSource`. */
export class ProjectTemplates {
  readonly #source: ProjectVersionSource;
  readonly #elapsed: () => number;
  readonly #ttlMs: number;
  readonly #versions = new LRUCache<string, LoadedTemplate>({ max: 500 });
  readonly #current = new LRUCache<string, CurrentEntry>({ max: 5000 });
  readonly #asking = new SingleFlight<CurrentEntry | null>();

  /**
   * Reads versions from `source`. `elapsed` is a monotonic clock in ms (default
   * `performance.now`); `ttlMs` how long a current version is used before it is asked again.
   */
  constructor(
    source: ProjectVersionSource,
    options: { elapsed?: () => number; ttlMs?: number } = {},
  ) {
    this.#source = source;
    this.#elapsed = options.elapsed ?? (() => performance.now());
    this.#ttlMs = options.ttlMs ?? CURRENT_VERSION_TTL_MS;
  }

  /**
   * The given version of the partner's project (the current one when `version` is undefined):
   * the token's `partner` and `project` claims name it. Throws `unknown_project_version` (404),
   * or `service_unavailable` (503) when the source cannot answer and nothing usable is cached.
   */
  async get(ref: ProjectRef, version?: number): Promise<LoadedTemplate> {
    const { slug } = ref;
    // Slugs are unique per partner only; a partner id never contains "/".
    const id = `${ref.partnerId}/${slug}`;
    let v = version;
    if (v === undefined) {
      let entry: CurrentEntry | null | undefined = this.#current.get(id);
      if (!entry || this.#elapsed() - entry.checkedAt > this.#ttlMs) {
        entry = await this.#askCurrent(id, ref, entry);
      }
      if (!entry) throw notFound(slug);
      v = entry.answer.version;
    }
    const key = `${id}@${v}`;
    const cached = this.#versions.get(key);
    if (cached) return cached;
    let doc: ProjectVersionDocument | null;
    try {
      doc = await this.#source.version(ref, v);
    } catch (err) {
      throw unavailable(err);
    }
    if (!doc) throw notFound(slug, version);
    return this.#remember(key, doc);
  }

  /** Versions and current-version answers held in memory. */
  stats(): { versions: number; current: number } {
    return { versions: this.#versions.size, current: this.#current.size };
  }

  /** Asks the source (one question per project at a time); a failure keeps `stale` if any. */
  #askCurrent(id: string, ref: ProjectRef, stale?: CurrentEntry): Promise<CurrentEntry | null> {
    return this.#asking.run(id, async () => {
      const askedAt = this.#elapsed();
      let answer: CurrentVersion | null;
      try {
        answer = await this.#source.current(ref, stale?.answer);
      } catch (err) {
        // The source cannot answer: serve the version last known current (docs/deploy.md).
        if (stale) return stale;
        throw unavailable(err);
      }
      if (!answer) {
        this.#current.delete(id);
        return null;
      }
      if (answer.document) {
        this.#remember(`${id}@${answer.version}`, answer.document);
        // The documents are cached by version; the entry keeps only the number and validator.
        answer = { version: answer.version, tag: answer.tag };
      }
      const entry = { answer, checkedAt: askedAt };
      this.#current.set(id, entry);
      return entry;
    }).promise;
  }

  #remember(key: string, doc: ProjectVersionDocument): LoadedTemplate {
    const cached = this.#versions.get(key);
    if (cached) return cached;
    const loaded: LoadedTemplate = {
      partnerId: doc.partnerId,
      slug: doc.slug,
      version: doc.version,
      mode: doc.mode,
      // Both documents were validated when they were published.
      template: doc.mode === "python" ? null : doc.template as Dag,
      schema: validateParameterSchema(doc.schema),
      templateHash: doc.templateHash,
    };
    this.#versions.set(key, loaded);
    return loaded;
  }
}

function unavailable(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError(
    "service_unavailable",
    "The project version cannot be loaded right now; retry shortly.",
    { cause: err, headers: { "Retry-After": "1" } },
  );
}

function notFound(slug: string, version?: number): AppError {
  return new AppError(
    "unknown_project_version",
    version === undefined
      ? `The project "${slug}" has no published version.`
      : `The project "${slug}" has no version ${version}.`,
  );
}
