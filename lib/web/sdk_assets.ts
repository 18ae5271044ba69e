/**
 * The browser files of the Python fallback (docs/design.md), served by the hub and never part of
 * the default bundle: the Pyodide runtime from the npm `pyodide` package under
 * `/sdk/v1/pyodide/<version>/<file>` (versioned, so cached for a year as immutable), and the
 * worker script plus the `cadparam` package under `/sdk/v1/python/<file>` (short cache, ETag).
 * Partner pages load them cross-origin, so every answer allows any origin (no credentials).
 */
// Importing the package's manifest also makes the module graph install the package.
import pyodidePackage from "pyodide/package.json" with { type: "json" };
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

const SHARED_HEADERS = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
  "x-content-type-options": "nosniff",
};

/**
 * One Pyodide file as a response (streamed from node_modules, immutable for a year). Throws
 * `AppError` `not_found` for another version or a file outside the list.
 *
 * @example
 * ```ts
 * await pyodideAsset("314.0.7", "pyodide.asm.wasm", null); // 200, application/wasm
 * ```
 */
export async function pyodideAsset(
  version: string,
  file: string,
  ifNoneMatch: string | null,
  method = "GET",
): Promise<Response> {
  const type = Object.hasOwn(PYODIDE_FILES, file) ? PYODIDE_FILES[file] : undefined;
  if (version !== PYODIDE_VERSION || type === undefined) {
    throw new AppError(
      "not_found",
      `Pyodide ${PYODIDE_VERSION} serves ${Object.keys(PYODIDE_FILES).join(", ")}.`,
    );
  }
  const url = new URL(file, PYODIDE_DIR);
  const info = await Deno.stat(url).catch(() => null);
  if (!info?.isFile) {
    throw new AppError("not_found", `${file} is not installed (run deno install).`);
  }
  const etag = `"${PYODIDE_VERSION}-${info.size.toString(36)}"`;
  const headers = new Headers({
    ...SHARED_HEADERS,
    "content-type": type,
    etag,
    "cache-control": "public, max-age=31536000, immutable",
  });
  if (ifNoneMatch === etag) return new Response(null, { status: 304, headers });
  headers.set("content-length", String(info.size));
  if (method === "HEAD") return new Response(null, { headers });
  return new Response((await Deno.open(url)).readable, { headers });
}

/** A file of the Python runtime: its bytes, content type and ETag. */
interface RuntimeFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

// Built once per process from files that only change with a deploy.
const runtimeFiles = new Map<string, Promise<RuntimeFile>>();

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

async function buildRuntimeFile(file: string): Promise<RuntimeFile> {
  const body = file === "worker.js" ? await Deno.readFile(WORKER_FILE) : await cadparamBundle();
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  const etag = `"${
    Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("")
  }"`;
  const type = file === "worker.js" ? "text/javascript; charset=utf-8" : "application/json";
  return { body, type, etag };
}

/**
 * `worker.js` (the Web Worker that hosts Pyodide) or `cadparam.json` (the design package) as a
 * response. Throws `AppError` `not_found` for any other name.
 *
 * @example
 * ```ts
 * await pythonRuntimeAsset("worker.js", null); // 200, text/javascript
 * ```
 */
export async function pythonRuntimeAsset(
  file: string,
  ifNoneMatch: string | null,
  method = "GET",
): Promise<Response> {
  if (file !== "worker.js" && file !== "cadparam.json") {
    throw new AppError("not_found", "The Python runtime serves worker.js and cadparam.json.");
  }
  let pending = runtimeFiles.get(file);
  if (!pending) {
    pending = buildRuntimeFile(file);
    runtimeFiles.set(file, pending);
    pending.catch(() => runtimeFiles.delete(file));
  }
  const { body, type, etag } = await pending;
  const headers = new Headers({
    ...SHARED_HEADERS,
    "content-type": type,
    etag,
    "cache-control": "public, max-age=300",
  });
  if (ifNoneMatch === etag) return new Response(null, { status: 304, headers });
  headers.set("content-length", String(body.length));
  return new Response(method === "HEAD" ? null : body, { headers });
}
