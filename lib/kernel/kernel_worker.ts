/**
 * The render worker: one manifold-3d module per worker, initialised once, then one DAG at a time
 * (the pool never sends a second job before the first is answered).
 *
 * Protocol (worker_protocol.ts): the worker posts `{ type: "ready" }` once manifold-3d is loaded;
 * the pool posts `{ id, dag, limits, reuseTriangles }` (`dag` the DAG or the JSON text holding it,
 * with the template shape it was checked against); the worker answers
 * `{ type: "result", id, json, reused }` (the scene as JSON text, and the solids its cache gave) or
 * `{ type: "error", id, error, fatal }`. `fatal` means the error was not an EvalError (a WASM
 * abort, an out-of-memory, a bug): the module may be corrupt, so the pool replaces this worker.
 */
import { toWireError } from "./eval_errors.ts";
import { evaluateDag, evaluateDagExact } from "./evaluate.ts";
import { buildExportFile } from "./export/export_file.ts";
import { getManifoldRuntime } from "./manifold_runtime.ts";
import { DEFAULT_SOLID_CACHE_LIMITS, SolidCache } from "./solid_cache.ts";
import { SubtreeKeys } from "./subtree_keys.ts";
import { dagOf, shapeOf, type WorkerJob, type WorkerReply } from "./worker_protocol.ts";

export type { WorkerJob, WorkerReply } from "./worker_protocol.ts";

/** The dedicated-worker global scope, as much of it as this module uses. */
interface WorkerScope {
  onmessage: ((event: MessageEvent<WorkerJob>) => void) | null;
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;

/**
 * Solids kept between this worker's renders, and their keys. Exports never reuse: an export file
 * is the same bytes for the same configuration (docs/exports.md), and a reused solid can change the
 * order of a boolean's triangles, not its surface (docs/dag.md, "Reuse between renders").
 */
const solids = new SolidCache();
const subtreeKeys = new SubtreeKeys();

/** Loads manifold-3d, then tells the pool this worker takes jobs. */
async function start(): Promise<void> {
  const runtime = await getManifoldRuntime();
  scope.onmessage = async (event) => {
    const { id, limits, reuseTriangles } = event.data;
    try {
      const dag = dagOf(event.data.dag);
      const wanted = event.data.export;
      if (wanted) {
        const { scene, exact } = await evaluateDagExact(dag, runtime, limits);
        const model = { title: wanted.title, parts: scene.parts, meshes: exact };
        const bytes = buildExportFile(wanted.format, model);
        scope.postMessage({ type: "file", id, bytes }, [bytes.buffer]);
        return;
      }
      solids.setLimits({ ...DEFAULT_SOLID_CACHE_LIMITS, maxTriangles: reuseTriangles });
      const shape = reuseTriangles > 0 ? shapeOf(event.data.dag) : undefined;
      const reuse = shape === undefined ? undefined : { cache: solids, keys: subtreeKeys, shape };
      const hitsBefore = solids.stats().hits;
      const scene = await evaluateDag(dag, runtime, limits, { reuse });
      const reused = solids.stats().hits - hitsBefore;
      scope.postMessage({ type: "result", id, json: JSON.stringify(scene), reused });
    } catch (err) {
      const error = toWireError(err);
      scope.postMessage({ type: "error", id, error, fatal: error.code === "internal_error" });
    }
  };
  scope.postMessage({ type: "ready" });
}

// A failed start surfaces as the worker's `error` event, which the pool handles.
await start();
