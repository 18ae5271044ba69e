/**
 * The in-browser Python fallback (docs/design.md): for a python-mode project, whose topology
 * changes with its parameters, the partner's `design.py` runs in Pyodide inside a Web Worker and
 * produces a concrete DAG, which the `RenderClient` posts to the kernel like any other
 * (`renderDag`). Nothing here loads until `load()` or the first `run()`: Pyodide (about 13 MB)
 * is fetched from the hub only by pages that render a python-mode project.
 *
 * Runs in browsers: no Deno APIs here.
 *
 * @example
 * ```ts
 * const runtime = new PythonRuntime({ hubBaseUrl: "https://hub.example.com" });
 * await renderer.loadProject("shelf");
 * const result = await renderWithPython(renderer, runtime, { boards: 6 });
 * ```
 */

import type { Dag } from "../dag/dag_types.ts";
import { completeParameterValues } from "../dag/parameter_schema.ts";
import { DagError } from "../dag/dag_errors.ts";
import type { RenderClient } from "./render_client.ts";
import type { RenderResult } from "./render_result.ts";

/** The Pyodide release the hub serves under `/sdk/v1/pyodide/<version>/`. */
export const PYODIDE_VERSION = "314.0.7";

/** Why the Python runtime failed. */
export type PythonRuntimeErrorCode =
  /** Pyodide or the design package could not be loaded (network, CSP, no WebAssembly). */
  | "python_load_failed"
  /** Values the design's schema refuses (checked before Python runs, and by Python too). */
  | "invalid_parameters"
  /** The design raised: a bad argument, a bug, an error its author wrote (`detail` has the line). */
  | "design_error"
  /** The project is not a python-mode project, or has no source. */
  | "unsupported_mode"
  /** The runtime was disposed. */
  | "disposed";

/** An error of the Python runtime, with a stable `code`. */
export class PythonRuntimeError extends Error {
  /** Stable machine-readable code. */
  readonly code: PythonRuntimeErrorCode;
  /** What Python said (`invalid_parameters`, `structure`, `design`, `exception`, …) if it ran. */
  readonly kind?: string;
  /** JSON pointer to the offending value for `invalid_parameters`. */
  readonly pointer?: string;

  /** Builds the error. */
  constructor(
    code: PythonRuntimeErrorCode,
    message: string,
    extra: { kind?: string; pointer?: string } = {},
  ) {
    super(message);
    this.name = "PythonRuntimeError";
    this.code = code;
    this.kind = extra.kind;
    this.pointer = extra.pointer;
  }
}

/** How long loading took, in milliseconds (measured inside the worker). */
export interface PythonLoadTimings {
  /** From the worker's first line to Pyodide ready. */
  pyodideMs: number;
  /** Until the design package was installed too. */
  totalMs: number;
}

/** Options of `PythonRuntime`. */
export interface PythonRuntimeOptions {
  /** The hub's base URL; the runtime files are under `/sdk/v1/`. */
  hubBaseUrl: string;
  /** Override the Pyodide folder (default `<hub>/sdk/v1/pyodide/<PYODIDE_VERSION>/`). */
  indexUrl?: string;
  /** Override the worker script URL (default `<hub>/sdk/v1/python/worker.js`). */
  workerUrl?: string;
  /** Override the design package URL (default `<hub>/sdk/v1/python/cadparam.json`). */
  cadparamUrl?: string;
  /** Makes the worker (default: a module worker; cross-origin scripts go through a blob). */
  createWorker?: (url: string) => Worker;
}

interface Waiter {
  resolve(dag: Dag): void;
  reject(err: PythonRuntimeError): void;
}

/** A lazily started Pyodide worker that runs python-mode designs. */
export class PythonRuntime {
  readonly #indexUrl: string;
  readonly #workerUrl: string;
  readonly #cadparamUrl: string;
  readonly #createWorker: (url: string) => Worker;
  #worker: Worker | null = null;
  #ready: Promise<PythonLoadTimings> | null = null;
  readonly #waiting = new Map<number, Waiter>();
  #nextId = 1;
  #disposed = false;

  /** A runtime whose files come from the hub at `hubBaseUrl`; nothing loads yet. */
  constructor(options: PythonRuntimeOptions) {
    if (typeof options?.hubBaseUrl !== "string" || options.hubBaseUrl === "") {
      throw new TypeError("PythonRuntime needs a hubBaseUrl");
    }
    const hub = options.hubBaseUrl.replace(/\/+$/, "");
    this.#indexUrl = options.indexUrl ?? `${hub}/sdk/v1/pyodide/${PYODIDE_VERSION}/`;
    this.#workerUrl = options.workerUrl ?? `${hub}/sdk/v1/python/worker.js`;
    this.#cadparamUrl = options.cadparamUrl ?? `${hub}/sdk/v1/python/cadparam.json`;
    this.#createWorker = options.createWorker ?? moduleWorker;
  }

  /** Starts the worker and loads Pyodide and the package (once); resolves with the timings. */
  load(): Promise<PythonLoadTimings> {
    if (this.#disposed) return Promise.reject(disposed());
    if (this.#ready) return this.#ready;
    this.#ready = new Promise<PythonLoadTimings>((resolve, reject) => {
      let worker: Worker;
      try {
        worker = this.#createWorker(this.#workerUrl);
      } catch (err) {
        reject(new PythonRuntimeError("python_load_failed", `no worker: ${describe(err)}`));
        return;
      }
      this.#worker = worker;
      worker.onerror = (event) => {
        const error = new PythonRuntimeError(
          "python_load_failed",
          `the Python worker failed: ${event.message || "script error"}`,
        );
        reject(error);
        this.#failAll(error);
      };
      worker.onmessage = (event: MessageEvent) => {
        const data = event.data;
        if (data?.type === "ready") resolve(data.timings);
        else if (data?.type === "failed") {
          reject(new PythonRuntimeError("python_load_failed", String(data.message)));
        } else if (data?.type === "result" || data?.type === "error") this.#settle(data);
      };
      worker.postMessage({
        type: "init",
        indexUrl: this.#indexUrl,
        cadparamUrl: this.#cadparamUrl,
      });
    });
    // A failed load can be retried with a fresh worker.
    this.#ready.catch(() => {
      this.#worker?.terminate();
      this.#worker = null;
      this.#ready = null;
    });
    return this.#ready;
  }

  /** Runs `source` (a python-mode `design.py`) with `values`; resolves with the concrete DAG. */
  async run(source: string, values: Record<string, unknown>): Promise<Dag> {
    await this.load();
    if (this.#disposed || !this.#worker) throw disposed();
    const id = this.#nextId++;
    const worker = this.#worker;
    return await new Promise<Dag>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ type: "run", id, source, values });
    });
  }

  /** Stops the worker; pending runs reject with `disposed`. */
  dispose(): void {
    this.#disposed = true;
    this.#worker?.terminate();
    this.#worker = null;
    this.#failAll(disposed());
  }

  #settle(data: { type: string; id: number; dag?: Dag; kind?: string; message?: string }): void {
    const waiter = this.#waiting.get(data.id);
    if (!waiter) return;
    this.#waiting.delete(data.id);
    if (data.type === "result") waiter.resolve(data.dag!);
    else {
      const code = data.kind === "invalid_parameters" ? "invalid_parameters" : "design_error";
      waiter.reject(new PythonRuntimeError(code, String(data.message), { kind: data.kind }));
    }
  }

  #failAll(error: PythonRuntimeError): void {
    for (const waiter of this.#waiting.values()) waiter.reject(error);
    this.#waiting.clear();
  }
}

/**
 * Renders a python-mode project: checks `values` against its schema, runs its design in the
 * runtime, and posts the DAG through the client (`RenderClient.renderDag`). Rejects with
 * `PythonRuntimeError` before rendering, or with the client's `RenderError`.
 *
 * @example
 * ```ts
 * const result = await renderWithPython(renderer, runtime, { boards: 6 });
 * result.parts.length; // 1
 * ```
 */
export async function renderWithPython(
  client: RenderClient,
  runtime: PythonRuntime,
  values: Record<string, unknown>,
): Promise<RenderResult> {
  const project = client.project;
  if (!project || project.mode !== "python" || project.source === null || !project.schema) {
    throw new PythonRuntimeError(
      "unsupported_mode",
      `renderWithPython needs a loaded python-mode project (got ${project?.mode ?? "none"}).`,
    );
  }
  let complete: Record<string, unknown>;
  try {
    complete = completeParameterValues(project.schema, values);
  } catch (err) {
    if (err instanceof DagError) {
      throw new PythonRuntimeError("invalid_parameters", err.message, { pointer: err.pointer });
    }
    throw err;
  }
  const dag = await runtime.run(project.source, complete);
  return await client.renderDag(dag, complete);
}

/**
 * A module worker for `url`. A worker script must share the page's origin, so a cross-origin
 * script (the hub's, on a partner's page) is started from a same-origin blob that imports it.
 */
function moduleWorker(url: string): Worker {
  const target = new URL(url, globalThis.location?.href);
  if (globalThis.location && target.origin === globalThis.location.origin) {
    return new Worker(target, { type: "module" });
  }
  const shim = new Blob([`import ${JSON.stringify(target.href)};`], {
    type: "text/javascript",
  });
  return new Worker(URL.createObjectURL(shim), { type: "module" });
}

function disposed(): PythonRuntimeError {
  return new PythonRuntimeError("disposed", "The Python runtime was disposed.");
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
