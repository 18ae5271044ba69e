/**
 * Loading a published project (`GET /api/v1/projects/<slug>[?key=…|?partner=…][&version=n]`,
 * public, no token): the DAG template and the parameter schema the client substitutes into. Slugs
 * are unique per partner, so the request names the partner: by the publishable keyId (browser
 * flow) or by the session token's `partner` claim (server flow). Answers are kept with their
 * `ETag` and revalidated with `If-None-Match`, so a remount or a version check costs a 304.
 *
 * Runs in browsers: no Deno APIs here.
 */

import { DagError } from "../dag/dag_errors.ts";
import type { Dag } from "../dag/dag_types.ts";
import { type ParameterSchema, validateParameterSchema } from "../dag/parameter_schema.ts";
import { isRecord, networkError, readProblem, RenderError, renderErrorFromDag } from "./problem.ts";
import { projectInit, type ProjectScope, projectUrl } from "./project_request.ts";
import { responseJson } from "./prefetch.ts";

export type { ProjectScope } from "./project_request.ts";

/** A published project version as the client uses it. */
export interface LoadedProject {
  slug: string;
  title: string;
  /** The published version these documents belong to (sent with every render). */
  version: number;
  /** `template` renders on this path; any other mode (the Python runtime) has no template. */
  mode: string;
  /** The DAG template (`template.dag.json`); null when the mode is not `template`. */
  template: Dag | null;
  /** The validated parameter schema; null when the mode is neither `template` nor `python`. */
  schema: ParameterSchema | null;
  /** The design's Python source (`design.py`) of a `python`-mode project, else null. */
  source: string | null;
  /** The schema document as published (for a form generator that reads display members). */
  schemaDocument: unknown;
}

/** Answers kept for revalidation (one per slug and version asked for). */
const MAX_KEPT = 16;

/**
 * Fetches projects with ETag revalidation.
 *
 * @example
 * ```ts
 * const loader = new ProjectLoader({ baseUrl: "https://kernel.example.com" });
 * const project = await loader.load("wall-bracket", undefined, { key: keyId });
 * ```
 */
export class ProjectLoader {
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #kept = new Map<string, { etag: string; project: LoadedProject }>();

  /** A loader for the service at `baseUrl`. */
  constructor(options: { baseUrl: string; fetch?: typeof fetch; now?: () => number }) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#now = options.now ?? Date.now;
  }

  /**
   * The project's current version, or `version`, of the partner `scope` names. Rejects with
   * `RenderError`: `unknown_project_version` (404), `project_ambiguous` (409: no scope, and
   * several partners publish this slug), `unknown_key`, `network_error`, `invalid_response`, or
   * `invalid_parameter_schema` when the published schema does not validate.
   */
  async load(slug: string, version?: number, scope: ProjectScope = {}): Promise<LoadedProject> {
    if (typeof slug !== "string" || slug === "") throw new TypeError("slug must be a string");
    if (version !== undefined && !(Number.isSafeInteger(version) && version >= 1)) {
      throw new TypeError("version must be a positive integer");
    }
    const url = projectUrl(this.#baseUrl, slug, version, scope);
    const kept = this.#kept.get(url);
    let res: Response;
    try {
      res = await this.#fetch(url, projectInit(kept?.etag));
    } catch (err) {
      throw networkError(RenderError, err);
    }
    if (res.status === 304 && kept) {
      await res.body?.cancel();
      this.#keep(url, kept.etag, kept.project);
      return kept.project;
    }
    if (!res.ok) throw await readProblem(res, RenderError, this.#now());
    let body: unknown;
    try {
      body = await responseJson(res);
    } catch (err) {
      throw invalidResponse(`the project answer is not JSON`, res.status, err);
    }
    const project = toProject(body, res.status);
    const etag = res.headers.get("etag");
    if (etag) this.#keep(url, etag, project);
    return project;
  }

  #keep(url: string, etag: string, project: LoadedProject): void {
    this.#kept.delete(url);
    this.#kept.set(url, { etag, project });
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= MAX_KEPT) break;
      this.#kept.delete(oldest);
    }
  }
}

function toProject(body: unknown, status: number): LoadedProject {
  if (
    !isRecord(body) || typeof body.slug !== "string" || typeof body.version !== "number" ||
    typeof body.mode !== "string"
  ) {
    throw invalidResponse("the project answer lacks slug, version or mode", status);
  }
  const project: LoadedProject = {
    slug: body.slug,
    title: typeof body.title === "string" ? body.title : body.slug,
    version: body.version,
    mode: body.mode,
    template: null,
    schema: null,
    source: null,
    schemaDocument: body.schema ?? null,
  };
  if (body.mode === "python") {
    if (typeof body.source !== "string") {
      throw invalidResponse("the python-mode project answer has no design source", status);
    }
    project.source = body.source;
  } else if (body.mode !== "template") {
    return project;
  } else {
    if (!isRecord(body.template) || !isRecord(body.template.nodes)) {
      throw invalidResponse("the project answer has no DAG template", status);
    }
    project.template = body.template as unknown as Dag;
  }
  try {
    project.schema = validateParameterSchema(body.schema);
  } catch (err) {
    throw err instanceof DagError ? renderErrorFromDag(err) : err;
  }
  return project;
}

function invalidResponse(detail: string, status: number, cause?: unknown): RenderError {
  return new RenderError({ code: "invalid_response", status, detail, cause });
}
