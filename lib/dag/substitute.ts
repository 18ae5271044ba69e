/**
 * Substitution: a template plus the customer's values gives the finished DAG the kernel renders
 * (docs/dag.md, "Substitution and hashing"). The browser and the server run this same code, so it
 * must be pure and deterministic: the result depends only on the template, the schema and the
 * values (not on the order of the values' keys), and nothing it is given is ever changed.
 *
 * Runs in browsers too: no Deno APIs here.
 */

import {
  type Dag,
  type DagNode,
  isParameterInput,
  type ParameterInputNode,
  type ParameterValue,
} from "./dag_types.ts";
import {
  assertTemplateParameters,
  completeParameterValues,
  type ParameterSchema,
} from "./parameter_schema.ts";

/**
 * Fills every `ParameterInput` of `template` with `values[parameter]` (validated) or the schema's
 * default, returning a new DAG with the template's member order. Throws `DagError`:
 * `invalid_parameters` at `/<name>` for an unknown name or an invalid value, `invalid_dag` when the
 * template does not fit the schema. A value of `undefined` counts as absent (form state).
 *
 * @example
 * ```ts
 * const finished = substitute(template, schema, { width: 120, finish: "gloss" });
 * ```
 */
export function substitute(
  template: Dag,
  schema: ParameterSchema,
  values: Record<string, unknown>,
): Dag {
  assertTemplateParameters(template, schema);
  const chosen = completeParameterValues(schema, values);
  // A ParameterInput's members are all primitives, so copying its entries copies it.
  return mapParameterInputs(
    template,
    (node) => withValue(node, chosen[node.parameter]),
  );
}

/**
 * The effective value of each parameter in a DAG (its `value`, else its `fallback`), by parameter
 * name; the first node of a parameter wins.
 *
 * @example
 * ```ts
 * parameterValues(substitute(template, schema, { width: 120 })).width; // 120
 * ```
 */
export function parameterValues(dag: Dag): Record<string, ParameterValue> {
  const entries: [string, ParameterValue][] = [];
  const seen = new Set<string>();
  for (const node of Object.values(dag.nodes)) {
    if (!isParameterInput(node) || seen.has(node.parameter)) continue;
    seen.add(node.parameter);
    entries.push([node.parameter, Object.hasOwn(node, "value") ? node.value! : node.fallback]);
  }
  return Object.fromEntries(entries);
}

/**
 * A deep copy of `dag` in which every `ParameterInput` node is replaced by `replace(node)`; all
 * other members are copied in their original order. `replace` gets the original node and must
 * not change it. Used by substitution and by the template shape.
 */
export function mapParameterInputs(
  dag: Dag,
  replace: (node: ParameterInputNode, id: string) => ParameterInputNode,
): Dag {
  const nodes = Object.fromEntries(
    Object.entries(dag.nodes).map(([id, node]): [string, DagNode] => [
      id,
      isParameterInput(node) ? replace(node, id) : copyJson(node) as DagNode,
    ]),
  );
  const out = Object.fromEntries(
    Object.entries(dag).map(([key, value]) => [key, key === "nodes" ? nodes : copyJson(value)]),
  );
  return out as unknown as Dag;
}

/** A copy of `node` with `value` set: in place when present (member order kept), else last. */
function withValue(node: ParameterInputNode, value: ParameterValue): ParameterInputNode {
  const entries: [string, unknown][] = Object.entries(node);
  const at = entries.findIndex(([name]) => name === "value");
  if (at >= 0) entries[at] = ["value", value];
  else entries.push(["value", value]);
  return Object.fromEntries(entries) as unknown as ParameterInputNode;
}

/**
 * A deep copy of JSON data. Recursive, which is safe here: a validated DAG is at most four levels
 * deep below a node (polygon points are the deepest). `Object.fromEntries` defines members the way
 * `JSON.parse` does, so a member named `__proto__` stays a member and never becomes a prototype.
 */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyJson(item)]));
  }
  return value;
}
