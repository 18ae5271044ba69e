/**
 * The browser files of the Python fallback (docs/design.md), served by the hub and never part of
 * the default bundle: the Pyodide runtime from the npm `pyodide` package under
 * `/sdk/v1/pyodide/<version>/<file>` (versioned, so cached for a year as immutable), and the
 * worker script plus the `cadparam` package under `/sdk/v1/python/<file>` (short cache, ETag).
 * Partner pages load them cross-origin, so every answer allows any origin (no credentials).
 * They are coded assets (lib/http/coded_asset.ts): every file but the stdlib zip (wasm too) goes
 * in brotli or gzip to clients that accept it, compressed once per process, with a strong ETag
 * per coding.
 */
// Importing the package's manifest also makes the module graph install the package.
import pyodidePackage from "pyodide/package.json" with { type: "json" };
import { type AssetRequest, assetResponse, cachedAsset, CodedAsset } from "../http/coded_asset.ts";
import { AppError } from "../http/problem.ts";

/** The Pyodide release the hub serves (the npm `pyodide` package in deno.json). */
export const PYODIDE_VERSION: string = pyodidePackage.version;

/** The files `loadPyodide` fetches without extra packages, with their content types. */
export const PYODIDE_FILES: Readonly<Record<string, string>> = Object.freeze({
  "pyodide.mjs": "text/javascript; charset=utf-8",
  "pyodide.asm.mjs": "text/javascript; charset=utf-8",
  "pyodide.asm.wasm": "application/wasm",
  "python_stdlib.zip": "application/zip",
  "pyodide-lock.json": "application/json",
});

const PYODIDE_DIR = new URL("./", import.meta.resolve("pyodide/package.json"));
const WORKER_FILE = new URL("../client/python_worker.js", import.meta.url);
const CADPARAM_DIR = new URL("../../design/cadparam/", import.meta.url);

export type { AssetRequest } from "../http/coded_asset.ts";

/** Already compressed: coding it again would only cost time. */
const STORED_AS_IS = new Set(["application/zip"]);

const SHARED_HEADERS = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
  "x-content-type-options": "nosniff",
};

/**
 * One Pyodide file as a response (a coded asset, immutable for a year). Throws
 * `AppError` `not_found` for another version or a file outside the list.
 *
 * @example
 * ```ts
 * await pyodideAsset("314.0.7", "pyodide.asm.wasm", { ifNoneMatch: null, acceptEncoding: "gzip" });
 * ```
 */
export async function pyodideAsset(
  version: string,
  file: string,
  request: AssetRequest,
): Promise<Response> {
  const type = Object.hasOwn(PYODIDE_FILES, file) ? PYODIDE_FILES[file] : undefined;
  if (version !== PYODIDE_VERSION || type === undefined) {
    throw new AppError(
      "not_found",
      `Pyodide ${PYODIDE_VERSION} serves ${Object.keys(PYODIDE_FILES).join(", ")}.`,
    );
  }
  const url = new URL(file, PYODIDE_DIR);
  const asset = await cachedAsset(`pyodide:${file}`, PYODIDE_VERSION, async () => {
    const bytes = await Deno.readFile(url).catch(() => {
      throw new AppError("not_found", `${file} is not installed (run deno install).`);
    });
    return CodedAsset.of(bytes, type, { compressible: !STORED_AS_IS.has(type) });
  });
  return assetResponse(asset, request, {
    cacheControl: "public, max-age=31536000, immutable",
    headers: SHARED_HEADERS,
  });
}

/** The `cadparam` package as JSON: `{ "files": { "cadparam/<name>.py": "<source>" } }`. */
async function cadparamBundle(): Promise<Uint8Array<ArrayBuffer>> {
  const files: Record<string, string> = {};
  const names: string[] = [];
  for await (const entry of Deno.readDir(CADPARAM_DIR)) {
    if (entry.isFile && entry.name.endsWith(".py")) names.push(entry.name);
  }
  for (const name of names.sort()) {
    files[`cadparam/${name}`] = await Deno.readTextFile(new URL(name, CADPARAM_DIR));
  }
  return new TextEncoder().encode(JSON.stringify({ files }));
}

async function buildRuntimeFile(file: string): Promise<CodedAsset> {
  if (file === "worker.js") {
    return CodedAsset.of(await Deno.readFile(WORKER_FILE), "text/javascript; charset=utf-8");
  }
  return CodedAsset.of(await cadparamBundle(), "application/json");
}

/**
 * `worker.js` (the Web Worker that hosts Pyodide) or `cadparam.json` (the design package) as a
 * response. Throws `AppError` `not_found` for any other name.
 *
 * @example
 * ```ts
 * await pythonRuntimeAsset("worker.js", { ifNoneMatch: null, acceptEncoding: null });
 * ```
 */
export async function pythonRuntimeAsset(
  file: string,
  request: AssetRequest,
): Promise<Response> {
  if (file !== "worker.js" && file !== "cadparam.json") {
    throw new AppError("not_found", "The Python runtime serves worker.js and cadparam.json.");
  }
  // Built once per process from files that only change with a deploy.
  const asset = await cachedAsset(`python:${file}`, "", () => buildRuntimeFile(file));
  return assetResponse(asset, request, {
    cacheControl: "public, max-age=300",
    headers: SHARED_HEADERS,
  });
}
