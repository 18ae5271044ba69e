/**
 * The walk that evaluates a DAG: nodes reachable from the output, dependencies first, each node
 * by its op's `evaluate` (`lib/kernel/ops/`, looked up by name — ops are data, no switch here).
 *
 * - **Iterative and lazy.** An explicit stack (a 2 000-node chain cannot overflow the call stack);
 *   an op with `needs` (select) gets only the references it asks for, so the branch it does not
 *   pick is never evaluated.
 * - **WASM memory.** manifold-3d objects are not garbage collected. Every object a node makes is
 *   owned by its entry; `dispose` deletes whatever is alive when evaluation ends — normally or by
 *   an exception — in one sweep. Before that, an entry's objects are deleted as soon as its last
 *   consumer is computed (a count of remaining references per node), because one sweep at the
 *   end alone does not bound peak memory: a 150-step `difference` chain on a 256-segment sphere
 *   (~35k triangles per step) measured 94 MiB RSS with early release and 1 206 MiB with only the
 *   final sweep; 2 000 nodes of larger solids would run out of wasm32's 4 GiB and abort instead of
 *   failing typed. Nodes that only re-label another node's geometry (`select`, `part`, transforms
 *   and repeats of instances) *hold* that node instead of copying it, and release it when freed.
 * - **Reuse between renders** (optional, `WalkReuse`). A node whose result a `SolidCache` holds is
 *   not evaluated, nor is anything only it needed: it takes the cached solid, and records as
 *   computed what its evaluation computed then (so `scene.effective` is the same). A solid that
 *   owns exactly its one object, holds no other node and took at least `minMs` to compute is
 *   offered to the cache; when the cache keeps it (solid_cache.ts: while it has room, then on a
 *   second sighting of its key), the cache owns it instead of this walk.
 */
import type { Dag, DagNode } from "../dag/dag_types.ts";
import { isRef, referencedIds } from "../dag/dag_types.ts";
import type { EvalLimits } from "./eval_limits.ts";
import type { ManifoldRuntime } from "./manifold_runtime.ts";
import type { SolidCache, SubtreeRecord } from "./solid_cache.ts";
import type { NodeKeys } from "./subtree_keys.ts";
import { opSpec } from "./ops/mod.ts";
import { NodeContext } from "./ops/op_context.ts";
import {
  type AssemblyValue,
  type Deletable,
  evalFail as fail,
  safeDelete,
  type Value,
  type WalkAccess,
} from "./ops/values.ts";

const PENDING = 0, VISITING = 1, DONE = 2, FREED = 3;

/** One reachable node: its value once evaluated, what it owns and how many consumers remain. */
interface Entry {
  id: string;
  node: DagNode;
  pointer: string;
  /** Referenced ids, once per reference. */
  refs: string[];
  /** References to this node (from reachable nodes) not yet released. */
  remaining: number;
  state: typeof PENDING | typeof VISITING | typeof DONE | typeof FREED;
  /** How far through `refs` the walk has checked (so a wide node is not rescanned). */
  cursor: number;
  value?: Value;
  owned: Deletable[];
  /** Nodes whose geometry this value aliases; released when this entry is freed. */
  holds: string[];
  /** The references a lazy op asked for last (all it needed once computed). */
  needed?: string[];
  /** What a node taken from the cache had computed (itself included). */
  reusedRecord?: readonly string[];
}

/** A cache of solids from earlier walks, and the keys of this walk's nodes in it. */
export interface WalkReuse {
  cache: SolidCache;
  keys: NodeKeys;
  /** Offer a solid to the cache only when computing it took this long (ms). */
  minMs: number;
}

function pointerOf(...tokens: (string | number)[]): string {
  return tokens.map((t) => "/" + String(t).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/** One evaluation of one DAG: `run`, then always `dispose`. */
export class DagWalk {
  readonly #dag: Dag;
  readonly #rt: ManifoldRuntime;
  readonly #limits: EvalLimits;
  readonly #signal?: AbortSignal;
  readonly #reuse?: WalkReuse;
  readonly #entries = new Map<string, Entry>();
  /** Temporaries of the node being computed, deleted when it is done. */
  #scratch: Deletable[] = [];
  /** Every numeric value computed, by node id (kept after the node is freed: a few numbers). */
  readonly numbers: Map<string, number> = new Map();
  /** The ids of every node computed (a branch `select` did not take is not among them). */
  readonly computed: Set<string> = new Set();

  /** A walk over `dag` on this runtime, under these limits, stopped by `signal`. */
  constructor(
    dag: Dag,
    rt: ManifoldRuntime,
    limits: EvalLimits,
    signal?: AbortSignal,
    reuse?: WalkReuse,
  ) {
    this.#dag = dag;
    this.#rt = rt;
    this.#limits = limits;
    this.#signal = signal;
    this.#reuse = reuse;
    reuse?.cache.beginWalk();
  }

  /** Evaluates the output assembly; its parts' solids stay alive until `dispose`. */
  run(): AssemblyValue {
    const output = this.#prepare();
    const stack: Entry[] = [output];
    while (stack.length > 0) {
      const entry = stack[stack.length - 1];
      if (entry.state === DONE || (entry.state === PENDING && this.#takeReused(entry))) {
        stack.pop();
        continue;
      }
      entry.state = VISITING;
      const next = this.#nextPending(entry);
      if (next) {
        stack.push(next);
        continue;
      }
      this.#checkSignal(entry);
      entry.value = this.#compute(entry);
      entry.state = DONE;
      stack.pop();
    }
    const value = output.value;
    if (typeof value !== "object" || value.kind !== "assembly") {
      fail("invalid_dag", "type_mismatch", "/output", "The output is not an assembly.");
    }
    return value;
  }

  /** Deletes every WASM object still alive (idempotent; runs on success and failure). */
  dispose(): void {
    for (const object of this.#scratch) safeDelete(object);
    this.#scratch = [];
    for (const entry of this.#entries.values()) {
      for (const object of entry.owned) safeDelete(object);
      entry.owned = [];
    }
  }

  /** Creates an entry for every node reachable from the output and counts references to each. */
  #prepare(): Entry {
    const dag = this.#dag;
    const nodes = typeof dag?.nodes === "object" && dag.nodes !== null ? dag.nodes : {};
    const outputId = dag?.output;
    const make = (id: string, from: string): Entry => {
      const node = Object.hasOwn(nodes, id) ? nodes[id] : undefined;
      if (typeof node !== "object" || node === null || typeof node.op !== "string") {
        fail("invalid_dag", "unknown_reference", from, `There is no node "${id}".`);
      }
      const entry: Entry = {
        id,
        node,
        pointer: pointerOf("nodes", id),
        refs: referencedIds(node),
        remaining: 0,
        state: PENDING,
        cursor: 0,
        owned: [],
        holds: [],
      };
      this.#entries.set(id, entry);
      return entry;
    };
    if (typeof outputId !== "string") {
      fail("invalid_dag", "unknown_reference", "/output", "The DAG names no output node.");
    }
    const output = make(outputId, "/output");
    if (output.node.op !== "assembly") {
      fail("invalid_dag", "output_not_assembly", "/output", "The output is not an assembly.");
    }
    output.remaining = 1; // the caller's own reference, never released: dispose frees it
    const todo = [output];
    while (todo.length > 0) {
      const entry = todo.pop()!;
      for (const id of entry.refs) {
        let target = this.#entries.get(id);
        if (!target) {
          target = make(id, entry.pointer);
          todo.push(target);
        }
        target.remaining++;
      }
    }
    return output;
  }

  /** The first dependency of `entry` still to evaluate, or undefined when all are done. */
  #nextPending(entry: Entry): Entry | undefined {
    const spec = opSpec(entry.node.op);
    const lazy = spec?.needs !== undefined;
    const ids = lazy ? (entry.needed = this.#needs(entry)) : entry.refs;
    for (let i = lazy ? 0 : entry.cursor; i < ids.length; i++) {
      const target = this.#entries.get(ids[i])!;
      if (target.state === DONE) continue;
      if (!lazy) entry.cursor = i;
      if (target.state === PENDING) return target;
      if (target.state === VISITING) {
        fail("invalid_dag", "cycle", entry.pointer, `Node "${entry.id}" is part of a cycle.`);
      }
      throw new Error(`evaluation bug: node "${target.id}" was freed while still referenced`);
    }
    if (!lazy) entry.cursor = ids.length;
    return undefined;
  }

  /** The referenced ids an op with `needs` asks for now. */
  #needs(entry: Entry): string[] {
    const node = entry.node as unknown as Record<string, unknown>;
    const peek = {
      done: (arg: unknown) => !isRef(arg) || this.#entries.get(arg.ref)?.state === DONE,
      value: (arg: unknown) => isRef(arg) ? this.#entries.get(arg.ref)?.value : arg,
    };
    const at = (member: string) => `${entry.pointer}/${member}`;
    return opSpec(entry.node.op)!.needs!(node, peek, at).filter(isRef).map((arg) => arg.ref);
  }

  #checkSignal(entry: Entry): void {
    const signal = this.#signal;
    if (!signal?.aborted) return;
    const timeout = (signal.reason as { name?: unknown } | undefined)?.name === "TimeoutError";
    fail(
      "render_timeout",
      timeout ? "deadline" : "aborted",
      entry.pointer,
      timeout ? "The evaluation ran past its deadline." : "The evaluation was aborted.",
    );
  }

  /**
   * Computes one node whose needed dependencies are done, then drops its references to them
   * (except those its value holds; a branch `select` did not pick is dropped unevaluated).
   */
  #compute(entry: Entry): Value {
    this.#scratch = [];
    const spec = opSpec(entry.node.op);
    if (spec === undefined) {
      const op = String((entry.node as { op: unknown }).op);
      fail("invalid_dag", "unknown_op", `${entry.pointer}/op`, `Unknown op "${op}".`);
    }
    const access: WalkAccess = {
      valueOf: (id) => {
        const target = this.#entries.get(id);
        if (!target || target.state !== DONE || target.value === undefined) {
          throw new Error(`evaluation bug: "${id}" used before it was evaluated`);
        }
        return target.value;
      },
      hold: (id) => entry.holds.push(id),
      own: (object) => entry.owned.push(object),
      temp: (object) => this.#scratch.push(object),
    };
    const node = entry.node as unknown as Record<string, unknown>;
    const ctx = new NodeContext(spec.members, node, entry.pointer, this.#rt, this.#limits, access);
    let value: Value;
    // Timed only when a cache may take the result (exports and python mode have none).
    const started = this.#reuse ? performance.now() : 0;
    try {
      value = spec.evaluate(ctx);
    } catch (err) {
      if (err instanceof Error && err.name === "ManifoldError") {
        fail("render_failed", "geometry_failed", entry.pointer, `manifold-3d: ${err.message}`);
      }
      throw err;
    } finally {
      for (const object of this.#scratch) safeDelete(object);
      this.#scratch = [];
    }
    const released = [...entry.refs];
    for (const id of entry.holds) {
      const k = released.lastIndexOf(id);
      if (k >= 0) released.splice(k, 1);
    }
    this.computed.add(entry.id);
    if (typeof value === "number") this.numbers.set(entry.id, value);
    const reuse = this.#reuse;
    if (
      reuse && typeof value === "object" && value.kind === "solid" && entry.holds.length === 0 &&
      entry.owned.length === 1 && entry.owned[0] === value.m &&
      performance.now() - started >= reuse.minMs
    ) {
      const key = reuse.keys.keyOf(entry.id);
      const admitted = reuse.cache.admits(key, value.m.numTri());
      if (admitted && reuse.cache.keep(key, value.m, this.#recordOf(entry))) {
        entry.owned = [];
        reuse.keys.remember(entry.id);
      }
    }
    for (const id of released) this.#release(id);
    return value;
  }

  /**
   * Takes a not yet visited node's solid from the cache, if held: the node is done, what its
   * evaluation computed is recorded as computed, and its references are dropped unevaluated.
   */
  #takeReused(entry: Entry): boolean {
    const reuse = this.#reuse;
    if (!reuse?.keys.isCandidate(entry.id)) return false;
    const held = reuse.cache.take(reuse.keys.keyOf(entry.id));
    if (held === undefined) return false;
    entry.value = { kind: "solid", m: held.m };
    entry.state = DONE;
    entry.reusedRecord = held.computed;
    for (const id of held.computed) this.computed.add(id);
    for (const [id, n] of held.numbers) this.numbers.set(id, n);
    for (const id of entry.refs) this.#release(id);
    return true;
  }

  /** Every node `entry`'s evaluation computed (itself included), and their numbers. */
  #recordOf(entry: Entry): SubtreeRecord {
    const seen = new Set<string>();
    const todo = [entry.id];
    while (todo.length > 0) {
      const id = todo.pop()!;
      if (seen.has(id)) continue;
      const at = this.#entries.get(id)!;
      if (at.reusedRecord) {
        for (const done of at.reusedRecord) seen.add(done);
        continue;
      }
      seen.add(id);
      todo.push(...(at.needed ?? at.refs));
    }
    const computed = [...seen];
    const numbers: [string, number][] = [];
    for (const id of computed) {
      const n = this.numbers.get(id);
      if (n !== undefined) numbers.push([id, n]);
    }
    return { computed, numbers };
  }

  /** Drops one reference to `id`; at zero its objects are deleted (or, never evaluated, its own
   * references are dropped in turn). */
  #release(first: string): void {
    const stack = [first];
    while (stack.length > 0) {
      const entry = this.#entries.get(stack.pop()!)!;
      if (--entry.remaining > 0) continue;
      if (entry.state === DONE) {
        for (const object of entry.owned) safeDelete(object);
        entry.owned = [];
        entry.value = undefined;
        entry.state = FREED;
        stack.push(...entry.holds);
      } else if (entry.state === PENDING) {
        entry.state = FREED;
        stack.push(...entry.refs);
      }
    }
  }
}
