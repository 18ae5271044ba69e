/**
 * The Python-runtime path (docs/design.md): a python-mode project has no template, so the kernel
 * cannot check that a DAG is an instance of anything. It accepts any valid DAG for such a project,
 * but under stricter limits than a template instance gets, because the partner's Python (run in
 * the customer's browser) decides its size: fewer nodes, a smaller expanded cost, fewer
 * triangles and a shorter deadline. The DAG must be concrete: no `ParameterInput` nodes.
 */
import { AppError } from "../http/problem.ts";
import { jsonPointer } from "../dag/dag_errors.ts";
import { type DagLimits, DEFAULT_DAG_LIMITS } from "../dag/dag_limits.ts";
import type { Dag } from "../dag/dag_types.ts";
import { validateDag } from "./dag_validate.ts";

/** The limits a python-mode DAG is validated and evaluated under (docs/design.md, "Limits"). */
export const PYTHON_MODE_LIMITS: Readonly<DagLimits> = Object.freeze({
  ...DEFAULT_DAG_LIMITS,
  maxNodes: 500,
  maxExpandedCost: 20_000,
  maxRepeatCount: 200,
  maxGridCount: 1000,
  maxInstancesPerPart: 1000,
  maxTriangles: 250_000,
  deadlineMs: 5000,
});

/**
 * Validates the DAG a python-mode project's runtime produced: a valid DAG v1 within
 * `PYTHON_MODE_LIMITS`, with no parameter slots. Throws `DagError` (`invalid_dag`) or an
 * `AppError` `invalid_dag` with reason `not_concrete`.
 *
 * @example
 * ```ts
 * const dag = assertPythonDag(body.dag);
 * ```
 */
export function assertPythonDag(input: unknown): Dag {
  const dag = validateDag(input, PYTHON_MODE_LIMITS);
  for (const [id, node] of Object.entries(dag.nodes)) {
    if (node.op === "ParameterInput") {
      throw new AppError(
        "invalid_dag",
        `"${id}" is a ParameterInput: a python-mode project renders concrete DAGs only.`,
        { extensions: { reason: "not_concrete", pointer: jsonPointer("nodes", id) } },
      );
    }
  }
  return dag;
}
