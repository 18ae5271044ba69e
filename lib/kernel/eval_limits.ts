/**
 * The limits evaluation enforces, apart from the evaluator: the worker pool on the main thread
 * passes them to every job, and importing them from `evaluate.ts` would load manifold-3d's JS glue
 * there too (the pool only ever talks to workers). Browser-safe and WASM-free.
 */
import { type DagLimits, DEFAULT_DAG_LIMITS } from "../dag/dag_limits.ts";

/** The `DagLimits` that evaluation itself enforces (the others are checked by `validateDag`). */
const EVAL_LIMIT_NAMES = [
  "maxTriangles",
  "minSegments",
  "maxSegments",
  "maxPolygonPoints",
  "maxRepeatCount",
  "maxGridCount",
  "maxInstancesPerPart",
  "maxAbsNumber",
  "maxStringLength",
  "maxTextCharacters",
  "maxTextVertices",
] as const satisfies readonly (keyof DagLimits)[];

/** The limits evaluation enforces; each means what it means in `DagLimits`. */
export type EvalLimits = Pick<DagLimits, typeof EVAL_LIMIT_NAMES[number]>;

/** The limits of docs/dag.md (`DEFAULT_DAG_LIMITS`), as far as evaluation enforces them. */
export const DEFAULT_EVAL_LIMITS: Readonly<EvalLimits> = Object.freeze(
  Object.fromEntries(
    EVAL_LIMIT_NAMES.map((name) => [name, DEFAULT_DAG_LIMITS[name]]),
  ) as EvalLimits,
);
