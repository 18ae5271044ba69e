/**
 * Which parameters the DAG itself limited in one evaluation, and to what (docs/api.md, render:
 * `scene.effective`). A design often bounds a parameter by others — the spur gear's hub is
 * `min(hubDiameter / 2, rootRadius)` — and a shopper who typed 60 mm should learn that the model
 * uses 43 mm, and why.
 *
 * The rule is exact, not a guess: a parameter is reported when a `min`, `max` or `clamp` node that
 * evaluation computed has an argument that is an *invertible affine chain* of that one parameter —
 * `ParameterInput` through `mul`/`add` with literal numbers, `sub` with a literal on either side,
 * `div` by a literal — and the node's result is not that argument's value. The effective value is
 * the chain inverted at the node's result (`hubRadius` 21.5 → `hubDiameter` 43), the direction is
 * the bound's sign through the chain, and `by` names the parameters the winning argument is
 * computed from. The chain must be the parameter's only way into the design (each link used by
 * the next alone, one `ParameterInput` of that name): a parameter also used elsewhere unbounded
 * keeps its value there, so no single effective value would be true. Nothing else is inferred: a
 * bound through a non-affine chain, or on a branch `select` did not take, is not reported.
 */
import {
  type Dag,
  type DagNode,
  isParameterInput,
  isRef,
  referencedIds,
} from "../dag/dag_types.ts";
import type { EffectiveValue } from "../dag/scene.ts";

/** `a · parameter + b`, and the chain's node ids from the bound's argument down to the input. */
interface Affine {
  a: number;
  b: number;
  path: string[];
}

/** Longest chain followed from a bound back to its parameter (designs use 1–3 steps). */
const MAX_CHAIN = 32;

/**
 * The parameters the DAG limited, by name, from what evaluation computed: `numbers` (node id →
 * value of every numeric node) and `computed` (every node id evaluated). Empty when nothing was
 * limited.
 *
 * @example
 * ```ts
 * effectiveValues(dag, walk.numbers, walk.computed);
 * // { hubDiameter: { value: 43, requested: 60, bound: "max", by: ["module", "teeth"] } }
 * ```
 */
export function effectiveValues(
  dag: Dag,
  numbers: ReadonlyMap<string, number>,
  computed: ReadonlySet<string>,
): Record<string, EffectiveValue> {
  const nodes = dag.nodes;
  const consumers = new Map<string, Set<string>>();
  const inputs = new Map<string, number>();
  for (const id of computed) {
    const node = nodes[id];
    if (isParameterInput(node)) inputs.set(node.parameter, (inputs.get(node.parameter) ?? 0) + 1);
    for (const ref of referencedIds(node)) {
      if (!consumers.has(ref)) consumers.set(ref, new Set());
      consumers.get(ref)!.add(id);
    }
  }
  // The chain is the parameter's only way into the design: each link feeds only the next.
  const exclusive = (bound: string, path: string[]) =>
    path.every((id, i) => {
      const used = consumers.get(id);
      return used?.size === 1 && used.has(i === 0 ? bound : path[i - 1]);
    });
  const out: Record<string, EffectiveValue> = {};
  const memo = new Map<string, string[]>();
  const valueOf = (arg: unknown): number | undefined =>
    typeof arg === "number" ? arg : isRef(arg) ? numbers.get(arg.ref) : undefined;
  for (const id of computed) {
    const result = numbers.get(id);
    if (result === undefined) continue;
    for (const { arg, others } of boundArguments(nodes[id])) {
      const argValue = valueOf(arg);
      if (!isRef(arg) || argValue === undefined || same(argValue, result)) continue;
      const chain = affineOf(nodes, arg.ref, 0);
      if (!chain || !exclusive(id, chain.path)) continue;
      const input = chain.path[chain.path.length - 1];
      const start = nodes[input];
      const requested = numbers.get(input);
      if (!isParameterInput(start) || requested === undefined) continue;
      if (inputs.get(start.parameter) !== 1) continue;
      // The node's result came from another argument: the one whose value it is.
      const winner = others.find((o) => {
        const v = valueOf(o);
        return v !== undefined && same(v, result);
      });
      out[start.parameter] = {
        value: tidy((result - chain.b) / chain.a),
        requested,
        bound: (result < argValue) === (chain.a > 0) ? "max" : "min",
        by: parametersOf(nodes, winner, memo).filter((p) => p !== start.parameter),
      };
    }
  }
  return out;
}

/** The arguments of a bounding node, each with the arguments it competes with. */
function boundArguments(node: DagNode): { arg: unknown; others: unknown[] }[] {
  const n = node as unknown as Record<string, unknown>;
  const args = n.args;
  if ((node.op === "min" || node.op === "max") && Array.isArray(args)) {
    return args.map((arg, i) => ({ arg, others: args.filter((_, j) => j !== i) }));
  }
  if (node.op === "clamp") return [{ arg: n.value, others: [n.min, n.max] }];
  return [];
}

/** `id` as an affine function of one ParameterInput, or null. */
function affineOf(nodes: Dag["nodes"], id: string, depth: number): Affine | null {
  if (depth > MAX_CHAIN || !Object.hasOwn(nodes, id)) return null;
  const node = nodes[id];
  if (isParameterInput(node)) return { a: 1, b: 0, path: [id] };
  const n = node as unknown as Record<string, unknown>;
  const next = (arg: unknown) => isRef(arg) ? affineOf(nodes, arg.ref, depth + 1) : null;
  const link = (inner: Affine | null, a: number, b: number): Affine | null =>
    inner && a !== 0 && Number.isFinite(a) && Number.isFinite(b)
      ? { a, b, path: [id, ...inner.path] }
      : null;
  switch (node.op) {
    case "mul":
    case "add": {
      if (!Array.isArray(n.args)) return null;
      const refs = n.args.filter(isRef);
      const literals = n.args.filter((x): x is number => typeof x === "number");
      if (refs.length !== 1 || refs.length + literals.length !== n.args.length) return null;
      const inner = next(refs[0]);
      if (!inner) return null;
      if (node.op === "add") {
        return link(
          inner,
          inner.a,
          inner.b + literals.reduce((s, x) => s + x, 0),
        );
      }
      const k = literals.reduce((s, x) => s * x, 1);
      return link(inner, inner.a * k, inner.b * k);
    }
    case "sub": {
      if (typeof n.b === "number") {
        const inner = next(n.a);
        return inner && link(inner, inner.a, inner.b - n.b);
      }
      if (typeof n.a === "number") {
        const inner = next(n.b);
        return inner && link(inner, -inner.a, n.a - inner.b);
      }
      return null;
    }
    case "div": {
      if (typeof n.b !== "number" || n.b === 0) return null;
      const inner = next(n.a);
      return inner && link(inner, inner.a / n.b, inner.b / n.b);
    }
    default:
      return null;
  }
}

/** The parameter names `arg` is computed from, in first-reached order (memoized per node). */
function parametersOf(
  nodes: Dag["nodes"],
  arg: unknown,
  memo: Map<string, string[]>,
): string[] {
  if (!isRef(arg)) return [];
  const found: string[] = [];
  const seen = new Set<string>();
  const stack = [arg.ref];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || !Object.hasOwn(nodes, id)) continue;
    seen.add(id);
    const known = memo.get(id);
    if (known) {
      for (const p of known) if (!found.includes(p)) found.push(p);
      continue;
    }
    const node = nodes[id];
    if (isParameterInput(node)) {
      if (!found.includes(node.parameter)) found.push(node.parameter);
      continue;
    }
    stack.push(...referencedIds(node).reverse());
  }
  memo.set(arg.ref, found);
  return found;
}

/** Equal up to floating-point noise. */
function same(x: number, y: number): boolean {
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

/** Rounds away the noise of inverting the chain (43.000000000000004 → 43). */
function tidy(x: number): number {
  return Number(x.toPrecision(12)) + 0;
}
