/**
 * The TypeScript shape of a DAG v1 document (docs/dag.md), generic over ops: a document of nodes,
 * each an `op` and its members, references between them, and the parameter slot
 * (`ParameterInput`) that the browser fills in. The ops themselves are defined in
 * `lib/kernel/ops/`; nothing here imports the kernel, so browser code can use these types.
 */

/** The DAG format version this kernel reads. */
export const DAG_VERSION = 1;

/** Lowercase `#rrggbb`, the only color spelling the format accepts. */
export const COLOR_PATTERN: RegExp = /^#[0-9a-f]{6}$/;

/** A reference to another node by id. */
export interface Ref {
  ref: string;
}

/** A literal parameter value: Int/Float → number, Bool → boolean, Enum/Color → string. */
export type ParameterValue = number | boolean | string;

/** A parameter slot; `value` is set by substitution. */
export interface ParameterInputNode {
  op: "ParameterInput";
  parameter: string;
  fallback: ParameterValue;
  value?: ParameterValue;
}

/**
 * Any other node: an op and its members. Which ops exist, and what their members are, is defined
 * once per op in `lib/kernel/ops/` (the validator checks a document against those specs before
 * anything relies on this shape).
 */
export interface OpNode {
  op: string;
  [member: string]: unknown;
}

/** Any DAG node. */
export type DagNode = ParameterInputNode | OpNode;

/** Whether a node is a parameter slot (narrows `DagNode`, whose other ops are open-ended). */
export function isParameterInput(node: DagNode): node is ParameterInputNode {
  return node.op === "ParameterInput";
}

/** A DAG document. */
export interface Dag {
  dag: 1;
  nodes: Record<string, DagNode>;
  output: string;
}

/** Whether a value is a `{ref}` reference. */
export function isRef(value: unknown): value is Ref {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    typeof (value as Ref).ref === "string" && Object.keys(value).length === 1;
}

/**
 * The ids a node's members reference, in member order, once per reference (vectors, lists of
 * children and polygon points hold references at most two levels deep).
 *
 * @example
 * ```ts
 * referencedIds({ op: "union", children: [{ ref: "a" }, { ref: "b" }] }); // ["a", "b"]
 * ```
 */
export function referencedIds(node: DagNode): string[] {
  const out: string[] = [];
  for (const value of Object.values(node as unknown as Record<string, unknown>)) {
    if (isRef(value)) out.push(value.ref);
    else if (Array.isArray(value)) {
      for (const item of value) {
        if (isRef(item)) out.push(item.ref);
        else if (Array.isArray(item)) {
          for (const inner of item) if (isRef(inner)) out.push(inner.ref);
        }
      }
    }
  }
  return out;
}
