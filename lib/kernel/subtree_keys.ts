/**
 * What identifies a node's result across renders, for `solid_cache.ts`. The kernel renders only
 * instances of a project's frozen template (template_instance.ts): the template exactly, except
 * for each `ParameterInput`'s `value`. So within one template shape a node's result depends on
 * nothing but the node, the values of the `ParameterInput`s it reaches, and the limits it was
 * evaluated under. The key is those, as text: the evaluation-limits JSON, the shape hash, the node
 * id, and the reached values in a fixed order — computed from a few values, not by hashing the
 * subtree, and exact.
 *
 * A walk looks up only nodes whose result was kept before (`remember`), and builds a key otherwise
 * only for a solid slow enough to offer to the cache.
 */
import { type Dag, isParameterInput, referencedIds } from "../dag/dag_types.ts";
import type { EvalLimits } from "./eval_limits.ts";

/** Keys for one walk: one template instance under one set of limits. */
export interface NodeKeys {
  /** Whether a result of node `id` was kept before (only those are worth looking up). */
  isCandidate(id: string): boolean;
  /** The exact key of node `id`'s result in this DAG. */
  keyOf(id: string): string;
  /** Marks node `id` as worth looking up in later walks of this shape. */
  remember(id: string): void;
}

/** Template shapes remembered at most. */
const MAX_SHAPES = 16;
/**
 * Nodes whose reached inputs a shape remembers at most (a list of ids each): past it the lists are
 * dropped and found again, so a template of 2 000 slow nodes costs time, not memory.
 */
const MAX_REACHED = 256;

interface ShapeTable {
  /** Node id → the `ParameterInput` ids it reaches, sorted. */
  reached: Map<string, string[]>;
  /** Nodes whose result was kept at least once. */
  candidates: Set<string>;
}

/** Per-shape tables of what each node reaches, bounded in shapes (least recently used out). */
export class SubtreeKeys {
  readonly #shapes = new Map<string, ShapeTable>();

  /**
   * Keys for a walk of `dag`, an instance of the template whose shape hash is `shape` (the caller
   * vouches for that: the render path checked it), under `limits`.
   *
   * @example
   * ```ts
   * const keys = subtreeKeys.forWalk(checked.templateHash, dag, limits);
   * keys.keyOf("body"); // the same text for every instance with the body's values
   * ```
   */
  forWalk(shape: string, dag: Dag, limits: EvalLimits): NodeKeys {
    let table = this.#shapes.get(shape);
    if (table === undefined) {
      table = { reached: new Map(), candidates: new Set() };
      if (this.#shapes.size >= MAX_SHAPES) this.#shapes.delete(this.#shapes.keys().next().value!);
    } else {
      this.#shapes.delete(shape);
    }
    this.#shapes.set(shape, table);
    const prefix = `${JSON.stringify(limits)}\u0000${shape}\u0000`;
    const nodes = dag.nodes;
    const { reached, candidates } = table;
    return {
      isCandidate: (id) => candidates.has(id),
      remember: (id) => void candidates.add(id),
      keyOf: (id) => {
        let inputs = reached.get(id);
        if (inputs === undefined) {
          if (reached.size >= MAX_REACHED) reached.clear();
          reached.set(id, inputs = reachedInputs(dag, id));
        }
        let key = prefix + JSON.stringify(id);
        for (const input of inputs) {
          const node = nodes[input];
          key += "\u0001" + valueText(isParameterInput(node) ? node.value : undefined);
        }
        return key;
      },
    };
  }
}

/** The `ParameterInput` ids reachable from `start` (itself included), sorted. */
function reachedInputs(dag: Dag, start: string): string[] {
  const seen = new Set<string>([start]);
  const todo = [start];
  const inputs: string[] = [];
  while (todo.length > 0) {
    const id = todo.pop()!;
    const node = dag.nodes[id];
    if (node === undefined) continue;
    if (isParameterInput(node)) inputs.push(id);
    for (const ref of referencedIds(node)) {
      if (!seen.has(ref)) {
        seen.add(ref);
        todo.push(ref);
      }
    }
  }
  return inputs.sort();
}

/** A parameter value as key text: JSON, with -0 and an absent value told apart. */
function valueText(value: unknown): string {
  if (value === undefined) return "~";
  return Object.is(value, -0) ? "-0" : JSON.stringify(value);
}
