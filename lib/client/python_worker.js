// @ts-check
/**
 * The Python fallback's Web Worker (docs/design.md): hosts Pyodide, the `cadparam` package and a
 * partner's design, and turns parameter values into a concrete DAG. Plain JavaScript, served by
 * the hub at `/sdk/v1/python/worker.js` as is, so it needs no build step; it is loaded only when
 * a python-mode project renders, never with the default bundle.
 *
 * Protocol (see python_runtime.ts):
 * - `{ type: "init", indexUrl, cadparamUrl }` → loads Pyodide from `indexUrl` (no extra packages,
 *   so nothing is fetched from a CDN) and the package → `{ type: "ready", timings }`, or
 *   `{ type: "failed", message }`.
 * - `{ type: "run", id, source, values }` → `{ type: "result", id, dag, ms }` or
 *   `{ type: "error", id, kind, message }`.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** Where the package is written inside Pyodide's file system. */
const LIB_DIR = "/home/pyodide/cadparam_lib";

/** @type {((source: string, values: string) => string) | null} */
let runSource = null;

/** @param {unknown} message */
function post(message) {
  /** @type {{ postMessage(message: unknown): void }} */ (/** @type {unknown} */ (self))
    .postMessage(message);
}

/**
 * @param {string} indexUrl
 * @param {string} cadparamUrl
 */
async function init(indexUrl, cadparamUrl) {
  const started = performance.now();
  const packageFiles = fetch(cadparamUrl, { credentials: "omit" }).then((res) => {
    if (!res.ok) throw new Error(`${cadparamUrl} answered ${res.status}`);
    return res.json();
  });
  const { loadPyodide } = await import(`${indexUrl}pyodide.mjs`);
  const pyodide = await loadPyodide({ indexURL: indexUrl, packages: [] });
  const loadedMs = performance.now() - started;
  const { files } = await packageFiles;
  for (const [path, text] of Object.entries(files)) {
    const full = `${LIB_DIR}/${path}`;
    pyodide.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    pyodide.FS.writeFile(full, text);
  }
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(LIB_DIR)})`);
  runSource = pyodide.runPython("from cadparam.runtime import run_source_json\nrun_source_json");
  return { pyodideMs: loadedMs, totalMs: performance.now() - started };
}

/** @param {MessageEvent} event */
self.onmessage = async (event) => {
  const data = event.data;
  if (data?.type === "init") {
    try {
      post({ type: "ready", timings: await init(data.indexUrl, data.cadparamUrl) });
    } catch (err) {
      post({ type: "failed", message: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
  if (data?.type !== "run") return;
  if (runSource === null) {
    post({ type: "error", id: data.id, kind: "not_ready", message: "init first" });
    return;
  }
  const started = performance.now();
  try {
    const out = JSON.parse(runSource(String(data.source), JSON.stringify(data.values ?? {})));
    const ms = performance.now() - started;
    if (out.ok) post({ type: "result", id: data.id, dag: out.dag, ms });
    else post({ type: "error", id: data.id, kind: out.error.kind, message: out.error.message });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    post({ type: "error", id: data.id, kind: "runtime", message });
  }
};
