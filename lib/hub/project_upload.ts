/**
 * A python-mode version uploaded in the settings: `design.py` and `parameters.schema.json` as form
 * files, read into the same `ProjectDocuments` the CLI reads from a folder (./project_dir.ts) and
 * then published by the same `publishProject`, so the web form and
 * `deno task hub project publish` accept and refuse the same files with the same problem codes:
 * `validation_failed` for a missing file, a schema that is not JSON, an empty or oversized source;
 * `invalid_parameter_schema` (with a JSON pointer) for a schema the kernel refuses.
 */
import { AppError } from "../http/problem.ts";
import { parseProjectJson, PROJECT_FILES } from "./project_dir.ts";
import type { ProjectDocuments } from "./publish.ts";

/** The form files of a python-mode upload (null: not chosen). */
export interface PythonUpload {
  source: File | null;
  schema: File | null;
}

/**
 * The documents of a python-mode upload. Throws `AppError` `validation_failed` (with the `file`
 * it concerns) for a file not chosen or a schema that is not JSON; two files that look swapped
 * (a JSON document given as the design, the schema not one) get reason `files_swapped`.
 *
 * @example
 * ```ts
 * const docs = await pythonUploadDocuments({ source: form.file("source"), schema: form.file("schema") });
 * await publishProject(kv, slug, docs, { partnerId });
 * ```
 */
export async function pythonUploadDocuments(upload: PythonUpload): Promise<ProjectDocuments> {
  const source = await textOf(upload.source, PROJECT_FILES.source);
  const schemaText = await textOf(upload.schema, PROJECT_FILES.schema);
  if (!isJsonObject(schemaText) && isJsonObject(source)) {
    throw new AppError(
      "validation_failed",
      `${PROJECT_FILES.schema} is not JSON and ${PROJECT_FILES.source} is: the two files look ` +
        "swapped. Give the Python source as the design and the JSON schema as the schema.",
      { extensions: { file: PROJECT_FILES.schema, pointer: "", reason: "files_swapped" } },
    );
  }
  return {
    mode: "python",
    schema: parseProjectJson(PROJECT_FILES.schema, schemaText),
    source,
  };
}

async function textOf(file: File | null, name: string): Promise<string> {
  if (!file || (file.size === 0 && file.name === "")) {
    throw new AppError("validation_failed", `Choose the file ${name}.`, {
      extensions: { file: name, pointer: "" },
    });
  }
  return await file.text();
}

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
}
