/**
 * The messages between the worker pool (main thread) and a render worker, in a module of their
 * own: the pool needs their types, and reaching them through `kernel_worker.ts` would put the
 * evaluator (and manifold-3d's JS glue) in the pool's module graph.
 *
 * Protocol: the worker posts `{ type: "ready" }` once manifold-3d is loaded; the pool posts
 * `{ id, dag, limits, reuseTriangles }` (`dag` a `DagSource`); the worker answers
 * `{ type: "result", id, json, reused }` (the scene as JSON text, and how many solids it took
 * from its cache) or `{ type: "error", id, error, fatal }`. A job with `export` is
 * answered `{ type: "file", id, bytes }` instead: the export file built on the worker from the
 * exact geometry (docs/exports.md).
 */
import type { Dag } from "../dag/dag_types.ts";
import type { WireError } from "./eval_errors.ts";
import type { EvalLimits } from "./eval_limits.ts";
import type { ExportFormat } from "../dag/export_format.ts";

/**
 * A checked DAG as the pool takes it: the DAG, or the JSON text whose `dag` member it is (a render
 * request's body, already checked). Text crosses to the worker as one string copy, where a DAG
 * object is structured-cloned node by node: for the spur gear's 56 nodes the main thread spent
 * ~40–60 µs posting the text against ~135–175 µs posting the object (and the worker's
 * `JSON.parse` of the text costs less than deserializing the clone).
 */
export type DagSource = Dag | {
  readonly dagIn: string;
  /**
   * The shape hash of the template this DAG was checked to be an instance of: its renders may
   * reuse solids of earlier ones on the worker (solid_cache.ts). Absent for python-mode DAGs.
   */
  readonly shape?: string;
};

/** The template shape a `DagSource` was checked against, if any. */
export function shapeOf(source: DagSource): string | undefined {
  return "dagIn" in source ? source.shape : undefined;
}

/** The DAG of a `DagSource` (on the worker: the text is parsed there). */
export function dagOf(source: DagSource): Dag {
  return "dagIn" in source ? (JSON.parse(source.dagIn) as { dag: Dag }).dag : source;
}

/** A job the pool sends. */
export interface WorkerJob {
  id: number;
  dag: DagSource;
  limits: EvalLimits;
  /** Triangles the worker's solid cache may hold (solid_cache.ts); 0 keeps none. */
  reuseTriangles: number;
  /** Build this export file instead of answering with the scene. */
  export?: { format: ExportFormat; title: string };
}

/** What the worker posts back. */
export type WorkerReply =
  | { type: "ready" }
  /**
   * The scene as JSON text, parsed back by the pool: posting the text costs the worker 16–21 µs
   * for the spur gear's scene against 104–185 µs for the object (structured clone walks every
   * instance matrix), and parsing it costs the pool ~27 µs. A scene has only finite numbers
   * (evaluation refuses the rest), so the text is the same scene.
   */
  | {
    type: "result";
    id: number;
    json: string;
    /** Nodes the walk took from the worker's solid cache instead of evaluating. */
    reused?: number;
  }
  | { type: "file"; id: number; bytes: Uint8Array }
  | { type: "error"; id: number; error: WireError; fatal: boolean };
