/**
 * The browser files of the Python fallback (docs/design.md), served by the hub and never part of
 * the default bundle: the Pyodide runtime from the npm `pyodide` package under
 * `/sdk/v1/pyodide/<version>/<file>` (versioned, so cached for a year as immutable), and the
 * worker script plus the `cadparam` package under `/sdk/v1/python/<file>` (short cache, ETag).
 * Partner pages load them cross-origin, so every answer allows any origin (no credentials).
 * Files that compress (everything but the stdlib zip) are sent gzipped to clients that accept it
 * (about 13.6 MB → 6.3 MB for a cold start); the gzipped bytes are made once per process.
 */
// Importing the package's manifest also makes the module graph install the package.
import pyodidePackage from "pyodide/package.json" with { type: "json" };
import { acceptsGzip, gzipBytes } from "../http/gzip.ts";
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

/** What a request for an asset says about caching and encodings. */
export interface AssetRequest {
  /** `If-None-Match`, or null. */
  ifNoneMatch: string | null;
  /** `Accept-Encoding`, or null (no gzip then). */
  acceptEncoding: string | null;
  /** `GET` (default) or `HEAD`. */
  method?: string;
}

/** Already compressed: gzip would only cost time. */
const STORED_AS_IS = new Set(["application/zip"]);

// Gzipped Pyodide files by name, made on first request (the package only changes with a deploy).
const gzippedPyodide = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

function memoized<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>) {
  let pending = cache.get(key);
  if (!pending) {
    pending = make();
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}

const SHARED_HEADERS = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
  "x-content-type-options": "nosniff",
};

/**
 * One Pyodide file as a response (streamed from node_modules, or gzipped when the client accepts
 * it and the file compresses; immutable for a year). Throws
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
  const info = await Deno.stat(url).catch(() => null);
  if (!info?.isFile) {
    throw new AppError("not_found", `${file} is not installed (run deno install).`);
  }
  const compressible = !STORED_AS_IS.has(type);
  const gzipped = compressible && acceptsGzip(request.acceptEncoding);
  const etag = `"${PYODIDE_VERSION}-${info.size.toString(36)}${gzipped ? "-gz" : ""}"`;
  const headers = new Headers({
    ...SHARED_HEADERS,
    "content-type": type,
    etag,
    "cache-control": "public, max-age=31536000, immutable",
  });
  if (compressible) headers.set("vary", "accept-encoding");
  if (request.ifNoneMatch === etag) return new Response(null, { status: 304, headers });
  if (gzipped) {
    const body = await memoized(
      gzippedPyodide,
      file,
      async () => gzipBytes(await Deno.readFile(url)),
    );
    headers.set("content-encoding", "gzip");
    headers.set("content-length", String(body.length));
    return new Response(request.method === "HEAD" ? null : body, { headers });
  }
  headers.set("content-length", String(info.size));
  if (request.method === "HEAD") return new Response(null, { headers });
  return new Response((await Deno.open(url)).readable, { headers });
}

/** A file of the Python runtime: its bytes, content type and ETag. */
interface RuntimeFile {
  body: Uint8Array<ArrayBuffer>;
  /** `body` gzipped. */
  gzipped: Uint8Array<ArrayBuffer>;
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
  return { body, gzipped: await gzipBytes(body), type, etag };
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
  const built = await memoized(runtimeFiles, file, () => buildRuntimeFile(file));
  const gzipped = acceptsGzip(request.acceptEncoding);
  const etag = gzipped ? `${built.etag.slice(0, -1)}-gz"` : built.etag;
  const headers = new Headers({
    ...SHARED_HEADERS,
    "content-type": built.type,
    etag,
    "cache-control": "public, max-age=300",
    vary: "accept-encoding",
  });
  if (request.ifNoneMatch === etag) return new Response(null, { status: 304, headers });
  const body = gzipped ? built.gzipped : built.body;
  if (gzipped) headers.set("content-encoding", "gzip");
  headers.set("content-length", String(body.length));
  return new Response(request.method === "HEAD" ? null : body, { headers });
}
