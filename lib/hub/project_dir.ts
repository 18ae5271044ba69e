/**
 * Reading a project folder to publish: `template.dag.json` + `parameters.schema.json` is a
 * template-mode project (a `design.py` beside them is just its source, already emitted);
 * `design.py` + `parameters.schema.json` without a template is a python-mode project whose DAGs
 * the in-browser Python runtime produces (docs/design.md).
 */
import { AppError } from "../http/problem.ts";
import type { ProjectDocuments } from "./publish.ts";

/** The files a project folder may hold. */
export const PROJECT_FILES = {
  template: "template.dag.json",
  schema: "parameters.schema.json",
  source: "design.py",
} as const;

/**
 * The documents of the project in `dir`, with its mode decided by which files exist. Throws
 * `AppError` `validation_failed` naming the file that is missing or not JSON.
 *
 * @example
 * ```ts
 * const docs = await readProjectDir("examples/projects/shelf");
 * docs.mode; // "python"
 * ```
 */
export async function readProjectDir(dir: string | URL): Promise<ProjectDocuments> {
  const base = typeof dir === "string" ? dir.replace(/\/+$/, "") + "/" : dir.href + "/";
  const url = (name: string) => typeof dir === "string" ? base + name : new URL(name, base);
  const schema = parseProjectJson(PROJECT_FILES.schema, await readText(url(PROJECT_FILES.schema)));
  const templateText = await readText(url(PROJECT_FILES.template), true);
  if (templateText !== null) {
    return {
      mode: "template",
      template: parseProjectJson(PROJECT_FILES.template, templateText),
      schema,
    };
  }
  const source = await readText(url(PROJECT_FILES.source), true);
  if (source === null) {
    throw new AppError(
      "validation_failed",
      `${base} has neither ${PROJECT_FILES.template} nor ${PROJECT_FILES.source}.`,
    );
  }
  return { mode: "python", schema, source };
}

async function readText(path: string | URL, optional = false): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (optional && err instanceof Deno.errors.NotFound) return null;
    throw new AppError("validation_failed", `cannot read ${path}: ${(err as Error).message}`);
  }
}

/**
 * Parses a project document's text; throws `validation_failed` naming `file` (pointer: the whole
 * document) when it is not JSON. The CLI and the settings' upload read documents through this.
 *
 * @example
 * ```ts
 * parseProjectJson("parameters.schema.json", await file.text());
 * ```
 */
export function parseProjectJson(file: string, text: string | null): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch (err) {
    throw new AppError(
      "validation_failed",
      `${file} is not valid JSON: ${(err as Error).message}`,
      {
        extensions: { file, pointer: "" },
      },
    );
  }
}
