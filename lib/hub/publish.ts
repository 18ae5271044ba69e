/**
 * Publishing a project version: validates `template.dag.json` and `parameters.schema.json`
 * against each other and stores them as a new immutable version. Validation errors carry a JSON
 * pointer into the document they concern (prefixed with its file name).
 */
import { AppError } from "../http/problem.ts";
import { canonicalJson, sha256Hex } from "../dag/canonical_dag.ts";
import { DagError } from "../dag/dag_errors.ts";
import { validateDag } from "../kernel/dag_validate.ts";
import { assertTemplateParameters, validateParameterSchema } from "../dag/parameter_schema.ts";
import { templateHash, templateShape } from "../kernel/template_instance.ts";
import { getProject, type ProjectRef, resolveSlug } from "../store/projects.ts";
import {
  type ProjectMode,
  type ProjectVersionMeta,
  publishProjectVersion,
} from "../store/project_versions.ts";

/**
 * The documents of a version, as parsed JSON: a template and its schema (mode `template`, the
 * default), or the design's Python source and its schema (mode `python`, docs/design.md).
 */
export interface ProjectDocuments {
  template?: unknown;
  schema: unknown;
  mode?: ProjectMode;
  /** The design's Python source (`design.py`); python mode only. */
  source?: string;
}

/** Largest Python design source accepted, in UTF-16 code units. */
export const MAX_DESIGN_SOURCE = 256 * 1024;

/**
 * The ETag of a version's documents: SHA-256 of the canonical JSON of what is published.
 *
 * @example
 * ```ts
 * await versionEtag({ template, schema }); // "9c0e…"
 * ```
 */
export function versionEtag(docs: ProjectDocuments): Promise<string> {
  return sha256Hex(
    canonicalJson(
      docs.mode === "python"
        ? { mode: "python", schema: docs.schema, source: docs.source }
        : { template: docs.template, schema: docs.schema },
    ),
  );
}

/**
 * Validates and publishes a new version of the project `slug` of `partnerId`. Without a
 * `partnerId` (the operator CLI, tests) the slug alone must name one project: when several
 * partners have it, `project_ambiguous`.
 *
 * @example
 * ```ts
 * const { version } = await publishProject(kv, "wall-bracket", { template, schema }, { partnerId });
 * ```
 */
export async function publishProject(
  kv: Deno.Kv,
  slug: string,
  docs: ProjectDocuments,
  options: { partnerId?: string; now?: number } = {},
): Promise<ProjectVersionMeta> {
  const project = options.partnerId !== undefined
    ? await getProject(kv, { partnerId: options.partnerId, slug })
    : await resolveSlug(kv, slug);
  if (!project) {
    throw new AppError("unknown_project_version", `No project "${slug}" to publish to.`);
  }
  const ref: ProjectRef = { partnerId: project.partnerId, slug };
  if (docs.mode !== "python" && looksLikeDag(docs.schema) && !looksLikeDag(docs.template)) {
    throw new AppError(
      "invalid_parameter_schema",
      "parameters.schema.json holds a DAG and template.dag.json does not: the two files look " +
        "swapped. Give the DAG as the template and the parameter schema as the schema.",
      { extensions: { file: "parameters.schema.json", pointer: "", reason: "files_swapped" } },
    );
  }
  const schema = inFile("parameters.schema.json", () => validateParameterSchema(docs.schema));
  if (docs.mode === "python") return await publishPython(kv, ref, docs, options.now);
  const template = inFile("template.dag.json", () => {
    const dag = validateDag(docs.template);
    assertTemplateParameters(dag, schema);
    // A template carries slots, not values: a stray `value` would pin a parameter forever.
    return templateShape(dag);
  });
  const hash = await templateHash(template);
  const etag = await versionEtag({ template, schema: docs.schema });
  return await publishProjectVersion(kv, {
    ...ref,
    mode: docs.mode ?? "template",
    template,
    schema: docs.schema,
    templateHash: hash,
    etag,
  }, options.now);
}

/** A python-mode version: the schema (already validated) and the design source, no template. */
async function publishPython(
  kv: Deno.Kv,
  ref: ProjectRef,
  docs: ProjectDocuments,
  now?: number,
): Promise<ProjectVersionMeta> {
  const source = docs.source;
  if (typeof source !== "string" || source.trim() === "") {
    throw new AppError("validation_failed", "design.py: a python-mode project needs its source.", {
      extensions: { file: "design.py", pointer: "" },
    });
  }
  if (source.length > MAX_DESIGN_SOURCE) {
    throw new AppError("validation_failed", `design.py: at most ${MAX_DESIGN_SOURCE} characters.`, {
      extensions: { file: "design.py", pointer: "" },
    });
  }
  if (docs.template !== undefined && docs.template !== null) {
    throw new AppError(
      "validation_failed",
      "template.dag.json: a python-mode project has no template (its DAGs come from design.py).",
      { extensions: { file: "template.dag.json", pointer: "" } },
    );
  }
  return await publishProjectVersion(kv, {
    ...ref,
    mode: "python",
    template: null,
    schema: docs.schema,
    source,
    // Nothing to be an instance of: the hash identifies the design source instead.
    templateHash: await sha256Hex(source),
    etag: await versionEtag({ mode: "python", schema: docs.schema, source }),
  }, now);
}

/** Whether a document has a DAG's own members (`nodes` and `output`), whatever else is wrong. */
function looksLikeDag(doc: unknown): boolean {
  return typeof doc === "object" && doc !== null && !Array.isArray(doc) &&
    Object.hasOwn(doc, "nodes") && Object.hasOwn(doc, "output");
}

function inFile<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DagError) {
      throw new AppError(err.code, `${file}: ${err.message}`, {
        extensions: { file, pointer: err.pointer, reason: err.reason },
      });
    }
    throw err;
  }
}
