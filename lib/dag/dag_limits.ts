/**
 * The limits that make hostile DAGs cheap to refuse (docs/dag.md, "Limits"), and the expanded
 * cost: how big a DAG would be if every shared sub-graph were copied into each place that uses it.
 * A few hundred nodes that each reference the previous one twice describe 2^n nodes of work for
 * anything that walks the graph as a tree, so the cost is bounded before evaluation starts.
 *
 * Runs in browsers too: no Deno APIs here.
 */

import { type Dag, referencedIds } from "./dag_types.ts";

/** Every limit checked before or during evaluation. */
export interface DagLimits {
  /** Largest accepted request body, in bytes (checked by the HTTP layer). */
  maxBodyBytes: number;
  /** Most nodes in one document. */
  maxNodes: number;
  /** Largest expanded cost (each node counted once per path that reaches it). */
  maxExpandedCost: number;
  /** Fewest `segments` per full circle. */
  minSegments: number;
  /** Most `segments` per full circle. */
  maxSegments: number;
  /** Most points in one polygon. */
  maxPolygonPoints: number;
  /** Largest `linearRepeat` / `polarRepeat` count. */
  maxRepeatCount: number;
  /** Largest nx·ny of a `gridRepeat`. */
  maxGridCount: number;
  /** Most instances one part may draw (nested repeats multiply). */
  maxInstancesPerPart: number;
  /** Largest absolute value of any number. */
  maxAbsNumber: number;
  /** Longest string literal or parameter value, in UTF-16 code units. */
  maxStringLength: number;
  /** Most characters (code points) of one `text` node's string. */
  maxTextCharacters: number;
  /** Most points of one `text` node's outlines, once curves are flattened. */
  maxTextVertices: number;
  /** Most triangles of any intermediate or the output (checked during evaluation). */
  maxTriangles: number;
  /** Wall-clock deadline of one evaluation, in milliseconds (checked during evaluation). */
  deadlineMs: number;
}

/** The limits of docs/dag.md. */
export const DEFAULT_DAG_LIMITS: Readonly<DagLimits> = Object.freeze({
  maxBodyBytes: 256 * 1024,
  maxNodes: 2000,
  maxExpandedCost: 200_000,
  minSegments: 3,
  maxSegments: 256,
  maxPolygonPoints: 1000,
  maxRepeatCount: 1000,
  maxGridCount: 10_000,
  maxInstancesPerPart: 10_000,
  maxAbsNumber: 1e6,
  maxStringLength: 200,
  maxTextCharacters: 64,
  maxTextVertices: 20_000,
  maxTriangles: 1_000_000,
  deadlineMs: 10_000,
});

/**
 * The defaults with some limits overridden.
 *
 * @example
 * ```ts
 * resolveDagLimits({ maxNodes: 100 }).maxNodes; // 100
 * ```
 */
export function resolveDagLimits(overrides: Partial<DagLimits> = {}): DagLimits {
  const limits: DagLimits = { ...DEFAULT_DAG_LIMITS };
  for (const key of Object.keys(DEFAULT_DAG_LIMITS) as (keyof DagLimits)[]) {
    const value = overrides[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

/**
 * Saturating expanded cost of every node: `cost(n) = 1 + Σ cost(child)` over each reference of
 * `n`, capped at `cap + 1` so that it never grows past "too big" (and cannot overflow).
 * `order` lists node indices dependencies-first; `refs[i]` lists the indices node i references,
 * once per reference (a node referenced twice counts twice).
 */
export function expandedCostsInOrder(
  order: readonly number[],
  refs: readonly (readonly number[])[],
  cap: number,
): Float64Array {
  const over = cap + 1;
  const costs = new Float64Array(refs.length);
  for (const i of order) {
    let cost = 1;
    for (const child of refs[i]) {
      cost += costs[child];
      if (cost >= over) {
        cost = over;
        break;
      }
    }
    costs[i] = cost;
  }
  return costs;
}

/**
 * The expanded cost of a validated DAG: its size if every reference were replaced by a copy of
 * the node it names, summed over the nodes nothing references (the output and any unused roots);
 * saturates at `cap + 1`. A cycle (impossible after `validateDag`) also counts as `cap + 1`.
 *
 * @example
 * ```ts
 * expandedCost(dag) > DEFAULT_DAG_LIMITS.maxExpandedCost; // refused by validateDag
 * ```
 */
export function expandedCost(
  dag: Dag,
  cap: number = DEFAULT_DAG_LIMITS.maxExpandedCost,
): number {
  const ids = Object.keys(dag.nodes);
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  const refs: number[][] = ids.map((id) => {
    const out: number[] = [];
    for (const target of referencedIds(dag.nodes[id])) {
      const j = index.get(target);
      if (j !== undefined) out.push(j);
    }
    return out;
  });
  const order = dependencyOrder(refs);
  if (order === undefined) return cap + 1;
  const costs = expandedCostsInOrder(order, refs, cap);
  const referenced = new Uint8Array(ids.length);
  for (const list of refs) for (const j of list) referenced[j] = 1;
  let total = 0;
  for (let i = 0; i < ids.length; i++) {
    if (referenced[i]) continue;
    total = Math.min(cap + 1, total + costs[i]);
  }
  return total;
}

/** Dependencies-first order by iterative DFS, or undefined when there is a cycle. */
function dependencyOrder(refs: readonly (readonly number[])[]): number[] | undefined {
  const state = new Uint8Array(refs.length); // 0 unseen, 1 on the stack, 2 done
  const order: number[] = [];
  const stack: number[] = [];
  const next: number[] = [];
  for (let root = 0; root < refs.length; root++) {
    if (state[root] !== 0) continue;
    state[root] = 1;
    stack.push(root);
    next.push(0);
    while (stack.length > 0) {
      const top = stack.length - 1;
      const node = stack[top];
      if (next[top] < refs[node].length) {
        const child = refs[node][next[top]++];
        if (state[child] === 1) return undefined;
        if (state[child] === 0) {
          state[child] = 1;
          stack.push(child);
          next.push(0);
        }
      } else {
        state[node] = 2;
        order.push(node);
        stack.pop();
        next.pop();
      }
    }
  }
  return order;
}
