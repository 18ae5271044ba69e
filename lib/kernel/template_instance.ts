/**
 * Frozen templates (docs/dag.md): the kernel renders only *instances* of a project's template, a
 * finished DAG that is the template exactly, except for the `value` of each `ParameterInput`,
 * and whose values are all valid. The template is stored with its shape hash, so the common case
 * costs one canonicalization and one SHA-256; the node-by-node comparison that finds *where* a
 * DAG departs from the template runs only after the hash has already said that it does.
 *
 * Runs in browsers too: no Deno APIs here.
 */

import { dagHash } from "./canonical_dag.ts";
import { DagError, jsonPointer } from "./dag_errors.ts";
import type { DagLimits } from "./dag_limits.ts";
import type { Dag, ParameterInputNode, ParameterValue } from "./dag_types.ts";
import { validateDag } from "./dag_validate.ts";
import { type ParameterSchema, validateParameterValue } from "./parameter_schema.ts";
import { mapParameterInputs } from "./substitute.ts";

/**
 * A copy of `dag` with every `ParameterInput.value` removed: what the template was.
 *
 * @example
 * ```ts
 * templateShape(substitute(template, schema, values)); // deep-equals templateShape(template)
 * ```
 */
export function templateShape(dag: Dag): Dag {
  return mapParameterInputs(dag, (node) => {
    const entries = Object.entries(node).filter(([key]) => key !== "value");
    return Object.fromEntries(entries) as unknown as ParameterInputNode;
  });
}

/**
 * The hash a template is stored with: the DAG hash of its shape (values, if any, removed).
 *
 * @example
 * ```ts
 * const hash = await templateHash(validateDag(templateDoc)); // stored with the project version
 * ```
 */
export function templateHash(template: Dag): Promise<string> {
  return dagHash(templateShape(template));
}

/**
 * Checks that `finished` is a valid DAG, an instance of `template` (whose shape hashes to
 * `templateHash`) and that every value is valid under `schema`; returns it typed. Throws
 * `DagError`: `invalid_dag` (any `validateDag` reason; `not_an_instance` at the first member that
 * differs from the template; `missing_value`; `unknown_parameter`) or `invalid_parameters` at
 * `/nodes/<id>/value` (a value the schema refuses, or `inconsistent_values` when two nodes of one
 * parameter disagree).
 *
 * @example
 * ```ts
 * const dag = await assertInstanceOf(body, version.template, version.templateHash, version.schema);
 * ```
 */
export async function assertInstanceOf(
  finished: unknown,
  template: Dag,
  templateHash: string,
  schema: ParameterSchema,
  limits: Partial<DagLimits> = {},
): Promise<Dag> {
  const dag = validateDag(finished, limits);
  const shape = templateShape(dag);
  if (await dagHash(shape) !== templateHash) {
    const pointer = firstDifference(shape, templateShape(template));
    throw new DagError(
      "invalid_dag",
      "not_an_instance",
      pointer,
      pointer === ""
        ? "the DAG is not an instance of the project's template"
        : `the DAG departs from the project's template at ${pointer}`,
    );
  }
  const byName = new Map(schema.parameters.map((param) => [param.name, param]));
  const seen = new Map<string, ParameterValue>();
  for (const [id, node] of Object.entries(dag.nodes)) {
    if (node.op !== "ParameterInput") continue;
    const pointer = jsonPointer("nodes", id, "value");
    if (!Object.hasOwn(node, "value")) {
      throw new DagError("invalid_dag", "missing_value", pointer, `"${id}" has no value`);
    }
    const param = byName.get(node.parameter);
    if (param === undefined) {
      throw new DagError(
        "invalid_dag",
        "unknown_parameter",
        jsonPointer("nodes", id, "parameter"),
        `the schema has no parameter "${node.parameter}"`,
      );
    }
    const value = validateParameterValue(param, node.value, pointer);
    const earlier = seen.get(param.name);
    if (earlier !== undefined && earlier !== value) {
      throw new DagError(
        "invalid_parameters",
        "inconsistent_values",
        pointer,
        `"${id}" gives ${param.name} another value than an earlier node`,
      );
    }
    seen.set(param.name, value);
  }
  return dag;
}

/**
 * The pointer to the first place where `actual` departs from `expected` ("" when they are equal as
 * JSON): nodes in `actual`'s order, then nodes only the template has, then `output`. Members are
 * compared in `actual`'s order, then members only `expected` has; arrays element by element.
 */
function firstDifference(actual: Dag, expected: Dag): string {
  const found = diff(actual.nodes, expected.nodes, "/nodes");
  if (found !== undefined) return found;
  for (const key of ["dag", "output"] as const) {
    if (actual[key] !== expected[key]) return jsonPointer(key);
  }
  return "";
}

/** Recursion is bounded: `actual` passed validateDag, so it is at most a few levels deep. */
function diff(actual: unknown, expected: unknown, pointer: string): string | undefined {
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected)) return pointer;
    const n = Math.min(actual.length, expected.length);
    for (let i = 0; i < n; i++) {
      const found = diff(actual[i], expected[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
    return actual.length === expected.length ? undefined : `${pointer}/${n}`;
  }
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === "object" && x !== null;
  if (isObject(actual) || isObject(expected)) {
    if (!isObject(actual) || !isObject(expected)) return pointer;
    for (const key of Object.keys(actual)) {
      const at = pointer + jsonPointer(key);
      if (!Object.hasOwn(expected, key)) return at;
      const found = diff(actual[key], expected[key], at);
      if (found !== undefined) return found;
    }
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(actual, key)) return pointer + jsonPointer(key);
    }
    return undefined;
  }
  return actual === expected ? undefined : pointer;
}
