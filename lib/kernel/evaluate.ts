/**
 * Evaluation of a validated DAG (docs/dag.md) into a Scene with manifold-3d: numbers, booleans and
 * strings in JS, profiles as CrossSections, solids as Manifolds, repeats as *instances* (one solid
 * and a list of column-major 4×4 transforms, sent once and drawn N times).
 *
 * Three properties matter more than speed:
 * - **Nothing leaks.** WASM objects are not garbage collected. Every object a node creates is
 *   owned by that node's entry and deleted as soon as the last consumer is done with it (a count
 *   of remaining references per node, taken over the graph reachable from the output); whatever
 *   is still alive when evaluation ends — normally or by an exception — is deleted in `finally`.
 *   Nodes that only re-label another node's geometry (`select`, `part`, transforms and repeats of
 *   instances) *hold* that node instead of copying it, and release it when they are freed.
 * - **Hostile values fail typed.** Validation has seen the JSON; only evaluation sees computed
 *   values. Every computed number is finite and within ±1e6, segments and counts within their
 *   limits, every intermediate within the triangle limit — or an EvalError with the pointer of the
 *   node (and member) to blame.
 * - **Iterative, lazy walk.** The graph is walked with an explicit stack (a 2 000-node chain cannot
 *   overflow the call stack), and `select` evaluates only the branch it picks: the other branch
 *   may hold a division by zero that the condition guards against.
 */
import type { CrossSection, Manifold } from "manifold-3d";
import type { Dag, DagNode } from "./dag_types.ts";
import { isRef, referencedIds } from "./dag_types.ts";
import { EvalError, type EvalErrorCode, type EvalErrorReason } from "./eval_errors.ts";
import { type DagLimits, DEFAULT_DAG_LIMITS } from "./dag_limits.ts";
import { getManifoldRuntime, type ManifoldRuntime } from "./manifold_runtime.ts";
import { encodeMesh, meshHash } from "./mesh_encoding.ts";
import type { EncodedMesh, Scene, ScenePart } from "./scene.ts";
import {
  applyToPoint,
  cosDegrees,
  identity,
  isIdentity,
  linearDeterminant,
  type Mat4,
  mirroring,
  multiply,
  rotation,
  scaling,
  sinDegrees,
  translation,
  type Vec3,
} from "./transforms.ts";

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
] as const satisfies readonly (keyof DagLimits)[];

/** The limits evaluation enforces; each means what it means in `DagLimits`. */
export type EvalLimits = Pick<DagLimits, typeof EVAL_LIMIT_NAMES[number]>;

/** The limits of docs/dag.md (`DEFAULT_DAG_LIMITS`), as far as evaluation enforces them. */
export const DEFAULT_EVAL_LIMITS: Readonly<EvalLimits> = Object.freeze(
  Object.fromEntries(
    EVAL_LIMIT_NAMES.map((name) => [name, DEFAULT_DAG_LIMITS[name]]),
  ) as EvalLimits,
);

/** Options of `evaluateDag`. */
export interface EvaluateDagOptions {
  /** Checked between nodes: an aborted signal stops evaluation with `render_timeout`. */
  signal?: AbortSignal;
}

/**
 * Evaluates a validated DAG into a Scene (on this thread's shared runtime unless one is given).
 * Throws an EvalError for anything wrong that only evaluation can see; every WASM object it
 * created is deleted before it returns or throws.
 *
 * @example
 * ```ts
 * const scene = await evaluateDag(dag, await getManifoldRuntime(), DEFAULT_EVAL_LIMITS);
 * scene.parts[0].mesh; // a key of scene.meshes
 * ```
 */
export async function evaluateDag(
  dag: Dag,
  runtime?: ManifoldRuntime,
  limits: EvalLimits = DEFAULT_EVAL_LIMITS,
  options: EvaluateDagOptions = {},
): Promise<Scene> {
  return (await evaluateDagExact(dag, runtime, limits, options)).scene;
}

/** A mesh as the kernel made it, before the lossy wire encoding (positions are quantized). */
export interface ExactMesh {
  /** Float32 x, y, z per vertex. */
  positions: Float32Array;
  /** Three vertex indices per triangle. */
  indices: Uint32Array;
}

/**
 * `evaluateDag`, also returning every mesh's exact geometry by hash: for checks that must not
 * see the quantization (closed manifolds, volumes) and for measuring the encoding.
 *
 * @example
 * ```ts
 * const { scene, exact } = await evaluateDagExact(dag);
 * exact.get(scene.parts[0].mesh)!.positions; // Float32Array
 * ```
 */
export async function evaluateDagExact(
  dag: Dag,
  runtime?: ManifoldRuntime,
  limits: EvalLimits = DEFAULT_EVAL_LIMITS,
  options: EvaluateDagOptions = {},
): Promise<{ scene: Scene; exact: Map<string, ExactMesh> }> {
  const rt = runtime ?? await getManifoldRuntime();
  const evaluation = new Evaluation(dag, rt, limits, options.signal);
  let extracted: ExtractedPart[];
  try {
    extracted = extractParts(evaluation.run(), limits);
  } finally {
    evaluation.dispose();
  }
  return await buildScene(extracted);
}

// ---------------------------------------------------------------------------------------------
// Values and entries

interface ProfileValue {
  kind: "profile";
  cs: CrossSection;
}
interface SolidValue {
  kind: "solid";
  m: Manifold;
}
interface InstancesValue {
  kind: "instances";
  m: Manifold;
  transforms: Mat4[];
}
interface PartValue {
  kind: "part";
  name: string;
  color: string;
  m: Manifold;
  transforms: Mat4[];
  pointer: string;
}
interface AssemblyValue {
  kind: "assembly";
  parts: PartValue[];
}
type Geometry = ProfileValue | SolidValue | InstancesValue;
type Value = number | boolean | string | Geometry | PartValue | AssemblyValue;

/** Anything that owns WASM memory. */
interface Deletable {
  delete(): void;
}

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
}

/** The F of `A·T·F`: a reflection that keeps instance transforms orientation-preserving. */
const FLIP_Z: Mat4 = scaling([1, 1, -1]);

function pointerOf(...tokens: (string | number)[]): string {
  return tokens.map((t) => "/" + String(t).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

function fail(
  code: EvalErrorCode,
  reason: EvalErrorReason,
  pointer: string,
  message: string,
): never {
  throw new EvalError(code, reason, message, { pointer });
}

// ---------------------------------------------------------------------------------------------
// The walk

class Evaluation {
  readonly #dag: Dag;
  readonly #rt: ManifoldRuntime;
  readonly #limits: EvalLimits;
  readonly #signal?: AbortSignal;
  readonly #entries = new Map<string, Entry>();
  /** Temporaries of the node being computed, deleted when it is done. */
  #scratch: Deletable[] = [];
  /** References the node being computed has used, released when it is done (unless held). */
  #used: string[] = [];

  constructor(dag: Dag, rt: ManifoldRuntime, limits: EvalLimits, signal?: AbortSignal) {
    this.#dag = dag;
    this.#rt = rt;
    this.#limits = limits;
    this.#signal = signal;
  }

  /** Evaluates the output assembly; its parts' solids stay alive until `dispose`. */
  run(): AssemblyValue {
    const output = this.#prepare();
    const stack: Entry[] = [output];
    while (stack.length > 0) {
      const entry = stack[stack.length - 1];
      if (entry.state === DONE) {
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
    const ids = entry.node.op === "select" ? this.#selectNeeds(entry) : entry.refs;
    for (let i = entry.node.op === "select" ? 0 : entry.cursor; i < ids.length; i++) {
      const target = this.#entries.get(ids[i])!;
      if (target.state === DONE) continue;
      if (entry.node.op !== "select") entry.cursor = i;
      if (target.state === PENDING) return target;
      if (target.state === VISITING) {
        fail("invalid_dag", "cycle", entry.pointer, `Node "${entry.id}" is part of a cycle.`);
      }
      throw new Error(`evaluation bug: node "${target.id}" was freed while still referenced`);
    }
    if (entry.node.op !== "select") entry.cursor = ids.length;
    return undefined;
  }

  /** A select needs its condition first, then only the branch the condition picks. */
  #selectNeeds(entry: Entry): string[] {
    const node = entry.node as Extract<DagNode, { op: "select" }>;
    const out: string[] = [];
    if (isRef(node.cond)) {
      out.push(node.cond.ref);
      if (this.#entries.get(node.cond.ref)!.state !== DONE) return out;
    }
    const cond = this.#peekBool(node.cond, entry.pointer + "/cond");
    const chosen = cond ? node.then : node.else;
    if (isRef(chosen)) out.push(chosen.ref);
    return out;
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

  /** Computes one node whose dependencies are done, then releases what it no longer needs. */
  #compute(entry: Entry): Value {
    this.#used = [];
    this.#scratch = [];
    let value: Value;
    try {
      value = this.#op(entry);
    } catch (err) {
      if (err instanceof Error && err.name === "ManifoldError") {
        fail("render_failed", "geometry_failed", entry.pointer, `manifold-3d: ${err.message}`);
      }
      throw err;
    } finally {
      for (const object of this.#scratch) safeDelete(object);
      this.#scratch = [];
    }
    for (const id of this.#used) this.#release(id);
    this.#used = [];
    return value;
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

  // -------------------------------------------------------------------------------------------
  // Arguments

  /** The value of a literal or of a referenced (already evaluated) node. */
  #arg(arg: unknown, pointer: string): Value {
    if (isRef(arg)) {
      const entry = this.#entries.get(arg.ref);
      if (!entry || entry.state !== DONE || entry.value === undefined) {
        throw new Error(`evaluation bug: "${arg.ref}" used before it was evaluated`);
      }
      this.#used.push(arg.ref);
      return entry.value;
    }
    if (typeof arg === "number" || typeof arg === "boolean" || typeof arg === "string") return arg;
    return fail("invalid_dag", "type_mismatch", pointer, "Expected a value or a reference.");
  }

  /** Keeps the last-used reference to `id` alive as long as the entry being computed. */
  #hold(entry: Entry, arg: unknown): void {
    if (!isRef(arg)) return;
    const i = this.#used.lastIndexOf(arg.ref);
    if (i >= 0) {
      this.#used.splice(i, 1);
      entry.holds.push(arg.ref);
    }
  }

  #checkNumber(value: number, pointer: string): number {
    if (!Number.isFinite(value)) {
      fail("render_failed", "nan", pointer, `A computed number is ${value}.`);
    }
    if (Math.abs(value) > this.#limits.maxAbsNumber) {
      fail(
        "render_failed",
        "out_of_range",
        pointer,
        `A computed number (${value}) is beyond ±${this.#limits.maxAbsNumber}.`,
      );
    }
    return value;
  }

  #num(arg: unknown, pointer: string): number {
    const value = this.#arg(arg, pointer);
    if (typeof value !== "number") {
      fail("invalid_dag", "type_mismatch", pointer, "Expected a number.");
    }
    return this.#checkNumber(value, pointer);
  }

  #optNum(arg: unknown, fallback: number, pointer: string): number {
    return arg === undefined ? fallback : this.#num(arg, pointer);
  }

  /** A number that must lie in [min, max] (bounds inclusive unless `exclusiveMin`). */
  #ranged(
    value: number,
    pointer: string,
    min: number,
    max: number,
    what: string,
    exclusiveMin = false,
  ): number {
    const aboveMin = exclusiveMin ? value > min : value >= min;
    if (!aboveMin || !(value <= max)) {
      const upper = max < Infinity ? ` and ≤ ${max}` : "";
      fail(
        "render_failed",
        "out_of_range",
        pointer,
        `${what} is ${value}; it must be ${exclusiveMin ? ">" : "≥"} ${min}${upper}.`,
      );
    }
    return value;
  }

  #positive(arg: unknown, pointer: string, what: string): number {
    return this.#ranged(this.#num(arg, pointer), pointer, 0, Infinity, what, true);
  }

  /** An integer member within a docs/dag.md limit (segments, counts, divisions). */
  #limitedInt(
    arg: unknown,
    fallback: number | undefined,
    pointer: string,
    min: number,
    max: number,
  ) {
    const value = arg === undefined && fallback !== undefined ? fallback : this.#num(arg, pointer);
    if (!Number.isInteger(value)) {
      fail("invalid_dag", "not_an_integer", pointer, `${value} is not an integer.`);
    }
    if (value < min || value > max) {
      fail("invalid_dag", "out_of_range", pointer, `${value} is outside ${min}–${max}.`);
    }
    return value;
  }

  #segments(arg: unknown, fallback: number, pointer: string): number {
    const { minSegments, maxSegments } = this.#limits;
    return this.#limitedInt(arg, fallback, pointer, minSegments, maxSegments);
  }

  #peekBool(arg: unknown, pointer: string): boolean {
    const value = isRef(arg) ? this.#entries.get(arg.ref)?.value : arg;
    if (typeof value !== "boolean") {
      fail("invalid_dag", "type_mismatch", pointer, "Expected a boolean.");
    }
    return value;
  }

  #bool(arg: unknown, fallback: boolean, pointer: string): boolean {
    if (arg === undefined) return fallback;
    const value = this.#arg(arg, pointer);
    if (typeof value !== "boolean") {
      fail("invalid_dag", "type_mismatch", pointer, "Expected a boolean.");
    }
    return value;
  }

  #str(arg: unknown, pointer: string): string {
    const value = this.#arg(arg, pointer);
    if (typeof value !== "string") {
      fail("invalid_dag", "type_mismatch", pointer, "Expected a string.");
    }
    if (value.length > this.#limits.maxStringLength) {
      fail("invalid_dag", "string_too_long", pointer, "A computed string is too long.");
    }
    return value;
  }

  #vec(arg: unknown, length: 2, pointer: string): [number, number];
  #vec(arg: unknown, length: 3, pointer: string): Vec3;
  #vec(arg: unknown, length: number, pointer: string): number[] {
    if (!Array.isArray(arg) || arg.length !== length) {
      fail("invalid_dag", "type_mismatch", pointer, `Expected a vector of ${length} numbers.`);
    }
    return arg.map((item, i) => this.#num(item, `${pointer}/${i}`));
  }

  #list(arg: unknown, pointer: string, max = 256): unknown[] {
    if (!Array.isArray(arg) || arg.length < 1 || arg.length > max) {
      fail("invalid_dag", "type_mismatch", pointer, `Expected a list of 1–${max} references.`);
    }
    return arg;
  }

  #geometry(arg: unknown, pointer: string): Geometry {
    const value = isRef(arg) ? this.#arg(arg, pointer) : undefined;
    if (
      typeof value !== "object" ||
      (value.kind !== "profile" && value.kind !== "solid" && value.kind !== "instances")
    ) {
      return fail("invalid_dag", "type_mismatch", pointer, "Expected a reference to geometry.");
    }
    return value;
  }

  #profile(arg: unknown, pointer: string): CrossSection {
    const value = this.#geometry(arg, pointer);
    if (value.kind !== "profile") {
      fail("invalid_dag", "type_mismatch", pointer, "Expected a profile.");
    }
    return value.cs;
  }

  #solidOrInstances(arg: unknown, pointer: string): SolidValue | InstancesValue {
    const value = this.#geometry(arg, pointer);
    if (value.kind === "profile") {
      fail("invalid_dag", "type_mismatch", pointer, "Expected a solid, not a profile.");
    }
    return value;
  }

  /** Positioned copies of a solid or instances (temporaries of the current node). */
  #copies(value: SolidValue | InstancesValue, pointer: string): Manifold[] {
    if (value.kind === "solid") return [value.m];
    const total = value.m.numTri() * value.transforms.length;
    this.#checkTriangles(total, pointer);
    return value.transforms.map((t) => this.#temp(value.m.transform(t)));
  }

  /** A solid or instances as one solid (instances merged by a union, since they may overlap). */
  #solid(arg: unknown, pointer: string): Manifold {
    const value = this.#solidOrInstances(arg, pointer);
    if (value.kind === "solid") return value.m;
    if (value.transforms.length === 1 && isIdentity(value.transforms[0])) return value.m;
    const merged = this.#temp(this.#rt.Manifold.union(this.#copies(value, pointer)));
    return this.#checkSolid(merged, pointer);
  }

  #temp<T extends Deletable>(object: T): T {
    this.#scratch.push(object);
    return object;
  }

  #own<T extends Deletable>(entry: Entry, object: T): T {
    entry.owned.push(object);
    return object;
  }

  #checkTriangles(count: number, pointer: string): void {
    if (count > this.#limits.maxTriangles) {
      fail(
        "invalid_dag",
        "too_many_triangles",
        pointer,
        `${count} triangles exceed the limit of ${this.#limits.maxTriangles}.`,
      );
    }
  }

  /**
   * Bounds the work (and WASM memory) of one boolean or hull before it runs: its inputs together
   * may hold at most twice the triangle limit. Each input is within the limit already, but 256 of
   * them need not be, and the result is only checked once it exists.
   */
  #checkWork(inputs: Manifold[], pointer: string): void {
    let total = 0;
    for (const m of inputs) total += m.numTri();
    if (total > 2 * this.#limits.maxTriangles) {
      fail(
        "invalid_dag",
        "too_many_triangles",
        pointer,
        `The inputs hold ${total} triangles; one operation takes at most ${
          2 * this.#limits.maxTriangles
        }.`,
      );
    }
  }

  #checkSolid(m: Manifold, pointer: string): Manifold {
    const status = m.status();
    if (status !== "NoError") {
      fail("render_failed", "geometry_failed", pointer, `manifold-3d reported ${status}.`);
    }
    this.#checkTriangles(m.numTri(), pointer);
    return m;
  }

  #newSolid(entry: Entry, m: Manifold): SolidValue {
    this.#own(entry, m);
    return { kind: "solid", m: this.#checkSolid(m, entry.pointer) };
  }

  #checkInstances(count: number, pointer: string): void {
    if (count > this.#limits.maxInstancesPerPart) {
      fail(
        "invalid_dag",
        "too_many_instances",
        pointer,
        `${count} instances exceed the limit of ${this.#limits.maxInstancesPerPart}.`,
      );
    }
  }

  // -------------------------------------------------------------------------------------------
  // Ops

  #op(entry: Entry): Value {
    const node = entry.node;
    const p = (member: string) => `${entry.pointer}/${member}`;
    const { Manifold, CrossSection } = this.#rt;
    switch (node.op) {
      case "ParameterInput": {
        const value = node.value !== undefined ? node.value : node.fallback;
        if (typeof value === "number") return this.#checkNumber(value, p("value"));
        if (typeof value === "boolean" || typeof value === "string") return value;
        return fail("invalid_dag", "type_mismatch", p("value"), "Not a parameter value.");
      }
      case "add":
      case "mul":
      case "min":
      case "max": {
        const args = this.#list(node.args, p("args"), 64).map((a, i) =>
          this.#num(a, p(`args/${i}`))
        );
        const result = node.op === "add"
          ? args.reduce((s, x) => s + x, 0)
          : node.op === "mul"
          ? args.reduce((s, x) => s * x, 1)
          : node.op === "min"
          ? Math.min(...args)
          : Math.max(...args);
        return this.#checkNumber(result, entry.pointer);
      }
      case "sub":
      case "div": {
        const a = this.#num(node.a, p("a"));
        const b = this.#num(node.b, p("b"));
        if (node.op === "div" && b === 0) {
          fail("render_failed", "division_by_zero", p("b"), "Division by a computed zero.");
        }
        return this.#checkNumber(node.op === "sub" ? a - b : a / b, entry.pointer);
      }
      case "clamp": {
        const value = this.#num(node.value, p("value"));
        const min = this.#num(node.min, p("min"));
        const max = this.#num(node.max, p("max"));
        if (min > max) {
          fail("render_failed", "out_of_range", p("min"), `clamp min ${min} is above max ${max}.`);
        }
        return Math.min(Math.max(value, min), max);
      }
      case "round":
        return this.#round(entry, node);
      case "compare":
        return this.#compare(entry, node);
      case "select": {
        const cond = this.#bool(node.cond, false, p("cond"));
        const [chosen, other] = cond ? [node.then, node.else] : [node.else, node.then];
        if (isRef(other)) this.#release(other.ref);
        const value = this.#arg(chosen, p(cond ? "then" : "else"));
        this.#hold(entry, chosen);
        return value;
      }
      case "rectangle": {
        const [x, y] = this.#vec(node.size, 2, p("size"));
        this.#ranged(Math.min(x, y), p("size"), 0, Infinity, "A rectangle side", true);
        const center = this.#bool(node.center, false, p("center"));
        return { kind: "profile", cs: this.#own(entry, CrossSection.square([x, y], center)) };
      }
      case "roundedRectangle":
        return { kind: "profile", cs: this.#own(entry, this.#roundedRectangle(entry, node)) };
      case "circle": {
        const radius = this.#positive(node.radius, p("radius"), "The radius");
        const segments = this.#segments(node.segments, 48, p("segments"));
        return { kind: "profile", cs: this.#own(entry, CrossSection.circle(radius, segments)) };
      }
      case "polygon":
        return { kind: "profile", cs: this.#own(entry, this.#polygon(entry, node)) };
      case "box": {
        const size = this.#vec(node.size, 3, p("size"));
        this.#ranged(Math.min(...size), p("size"), 0, Infinity, "A box side", true);
        const center = this.#bool(node.center, false, p("center"));
        return this.#newSolid(entry, Manifold.cube(size, center));
      }
      case "cylinder": {
        const height = this.#positive(node.height, p("height"), "The height");
        const radius = this.#positive(node.radius, p("radius"), "The radius");
        const top = node.radiusTop === undefined ? radius : this.#ranged(
          this.#num(node.radiusTop, p("radiusTop")),
          p("radiusTop"),
          0,
          1e6,
          "radiusTop",
        );
        const segments = this.#segments(node.segments, 48, p("segments"));
        const center = this.#bool(node.center, false, p("center"));
        return this.#newSolid(entry, Manifold.cylinder(height, radius, top, segments, center));
      }
      case "sphere": {
        const radius = this.#positive(node.radius, p("radius"), "The radius");
        const segments = this.#segments(node.segments, 48, p("segments"));
        return this.#newSolid(entry, Manifold.sphere(radius, segments));
      }
      case "extrude": {
        const profile = this.#profile(node.profile, p("profile"));
        const height = this.#positive(node.height, p("height"), "The height");
        const twist = this.#optNum(node.twist, 0, p("twist"));
        const scaleTop = node.scaleTop === undefined
          ? [1, 1] as [number, number]
          : this.#vec(node.scaleTop, 2, p("scaleTop"));
        this.#ranged(Math.min(...scaleTop), p("scaleTop"), 0, Infinity, "scaleTop");
        const divisions = this.#limitedInt(node.divisions, 0, p("divisions"), 0, 256);
        const center = this.#bool(node.center, false, p("center"));
        return this.#newSolid(entry, profile.extrude(height, divisions, twist, scaleTop, center));
      }
      case "revolve": {
        const profile = this.#profile(node.profile, p("profile"));
        const segments = this.#segments(node.segments, 48, p("segments"));
        const degrees = this.#ranged(
          this.#optNum(node.degrees, 360, p("degrees")),
          p("degrees"),
          0,
          360,
          "The revolve angle",
          true,
        );
        // `segments` is per full circle, as everywhere in the format; manifold-3d takes the
        // divisions of the swept span (and ignores fewer than 3).
        const divisions = Math.max(3, Math.ceil(segments * degrees / 360 - 1e-9));
        return this.#newSolid(entry, profile.revolve(divisions, degrees));
      }
      case "union":
      case "intersection": {
        // A union takes the instances' copies directly (one boolean, not a merge and then
        // another); an intersection must intersect each child as a whole.
        const solids = this.#list(node.children, p("children")).flatMap((c, i) =>
          node.op === "union"
            ? this.#copies(this.#solidOrInstances(c, p(`children/${i}`)), p(`children/${i}`))
            : [this.#solid(c, p(`children/${i}`))]
        );
        this.#checkWork(solids, entry.pointer);
        const m = node.op === "union" ? Manifold.union(solids) : Manifold.intersection(solids);
        return this.#newSolid(entry, m);
      }
      case "difference": {
        const base = this.#solid(node.base, p("base"));
        // Subtracting each instance is subtracting their union: no merge needed.
        const cutters = this.#list(node.subtract, p("subtract")).flatMap((c, i) =>
          this.#copies(this.#solidOrInstances(c, p(`subtract/${i}`)), p(`subtract/${i}`))
        );
        this.#checkWork([base, ...cutters], entry.pointer);
        return this.#newSolid(entry, Manifold.difference([base, ...cutters]));
      }
      case "hull": {
        const copies = this.#list(node.children, p("children")).flatMap((c, i) =>
          this.#copies(this.#solidOrInstances(c, p(`children/${i}`)), p(`children/${i}`))
        );
        this.#checkWork(copies, entry.pointer);
        return this.#newSolid(entry, Manifold.hull(copies));
      }
      case "translate": {
        const offset = this.#vec(node.offset, 3, p("offset"));
        return this.#transform(entry, node.child, translation(offset), (m) => m.translate(offset));
      }
      case "rotate": {
        const degrees = this.#vec(node.degrees, 3, p("degrees"));
        return this.#transform(entry, node.child, rotation(degrees), (m) => m.rotate(degrees));
      }
      case "scale": {
        const factor = this.#vec(node.factor, 3, p("factor"));
        if (factor.some((f) => f === 0)) {
          fail("render_failed", "out_of_range", p("factor"), "A scale factor is zero.");
        }
        return this.#transform(entry, node.child, scaling(factor), (m) => m.scale(factor));
      }
      case "mirror": {
        const normal = this.#vec(node.normal, 3, p("normal"));
        if (normal.every((n) => n === 0)) {
          fail("render_failed", "out_of_range", p("normal"), "The mirror normal is zero.");
        }
        return this.#transform(entry, node.child, mirroring(normal), (m) => m.mirror(normal));
      }
      case "linearRepeat": {
        const count = this.#limitedInt(
          node.count,
          undefined,
          p("count"),
          1,
          this.#limits.maxRepeatCount,
        );
        const step = this.#vec(node.step, 3, p("step"));
        const placements = Array.from(
          { length: count },
          (_, i) => translation([i * step[0], i * step[1], i * step[2]]),
        );
        return this.#repeat(entry, node.child, placements);
      }
      case "gridRepeat": {
        if (!Array.isArray(node.count) || node.count.length !== 2) {
          fail("invalid_dag", "type_mismatch", p("count"), "Expected [nx, ny].");
        }
        const { maxGridCount } = this.#limits;
        const nx = this.#limitedInt(node.count[0], undefined, p("count/0"), 1, maxGridCount);
        const ny = this.#limitedInt(node.count[1], undefined, p("count/1"), 1, maxGridCount);
        if (nx * ny > maxGridCount) {
          fail("invalid_dag", "out_of_range", p("count"), `${nx}×${ny} exceeds ${maxGridCount}.`);
        }
        const [dx, dy] = this.#vec(node.step, 2, p("step"));
        const placements: Mat4[] = [];
        for (let j = 0; j < ny; j++) {
          for (let i = 0; i < nx; i++) placements.push(translation([i * dx, j * dy, 0]));
        }
        return this.#repeat(entry, node.child, placements);
      }
      case "polarRepeat": {
        const count = this.#limitedInt(
          node.count,
          undefined,
          p("count"),
          1,
          this.#limits.maxRepeatCount,
        );
        const span = this.#ranged(
          this.#optNum(node.degrees, 360, p("degrees")),
          p("degrees"),
          -360,
          360,
          "The polar span",
        );
        // A full turn spaces count instances evenly; a partial span puts the last at its end.
        const step = Math.abs(span) === 360 ? span / count : count > 1 ? span / (count - 1) : 0;
        const placements = Array.from({ length: count }, (_, i) => rotation([0, 0, i * step]));
        return this.#repeat(entry, node.child, placements);
      }
      case "part":
        return this.#part(entry, node);
      case "assembly": {
        const parts = this.#list(node.parts, p("parts"), 64).map((ref, i) => {
          const value = isRef(ref) ? this.#arg(ref, p(`parts/${i}`)) : undefined;
          if (typeof value !== "object" || value.kind !== "part") {
            return fail("invalid_dag", "type_mismatch", p(`parts/${i}`), "Expected a part.");
          }
          this.#hold(entry, ref);
          return value;
        });
        const names = new Set<string>();
        parts.forEach((part, i) => {
          if (names.has(part.name)) {
            fail(
              "invalid_dag",
              "duplicate_part_name",
              p(`parts/${i}`),
              `Two parts are "${part.name}".`,
            );
          }
          names.add(part.name);
        });
        return { kind: "assembly", parts };
      }
      default:
        return fail(
          "invalid_dag",
          "unknown_op",
          p("op"),
          `Unknown op "${String((node as { op: unknown }).op)}".`,
        );
    }
  }

  /** `round` to a multiple of `step`; a quotient within 1e-9 of an integer counts as that integer,
   * so floor(0.3 / 0.1) is 3, not 2. `nearest` rounds halves away from zero. */
  #round(entry: Entry, node: Extract<DagNode, { op: "round" }>): number {
    const value = this.#num(node.value, `${entry.pointer}/value`);
    const step = this.#optNum(node.step, 1, `${entry.pointer}/step`);
    if (!(step > 0)) {
      fail("render_failed", "out_of_range", `${entry.pointer}/step`, "step must be > 0.");
    }
    let q = value / step;
    const nearest = Math.sign(q) * Math.round(Math.abs(q));
    if (Math.abs(q - nearest) <= 1e-9 * Math.max(1, Math.abs(q))) q = nearest;
    const mode = node.mode ?? "nearest";
    const k = mode === "floor" ? Math.floor(q) : mode === "ceil" ? Math.ceil(q) : nearest;
    if (mode !== "nearest" && mode !== "floor" && mode !== "ceil") {
      fail("invalid_dag", "type_mismatch", `${entry.pointer}/mode`, `Unknown mode "${mode}".`);
    }
    return this.#checkNumber(k * step + 0, entry.pointer);
  }

  #compare(entry: Entry, node: Extract<DagNode, { op: "compare" }>): boolean {
    const a = this.#arg(node.a, `${entry.pointer}/a`);
    const b = this.#arg(node.b, `${entry.pointer}/b`);
    const scalar = (v: Value) => typeof v !== "object";
    if (!scalar(a) || !scalar(b) || typeof a !== typeof b) {
      fail("invalid_dag", "type_mismatch", entry.pointer, "compare needs two values of one type.");
    }
    if (node.test === "eq") return a === b;
    if (node.test === "ne") return a !== b;
    if (typeof a !== "number" || typeof b !== "number") {
      fail("invalid_dag", "type_mismatch", entry.pointer, `"${node.test}" compares numbers.`);
    }
    switch (node.test) {
      case "lt":
        return a < b;
      case "le":
        return a <= b;
      case "gt":
        return a > b;
      case "ge":
        return a >= b;
      default:
        return fail("invalid_dag", "type_mismatch", `${entry.pointer}/test`, "Unknown test.");
    }
  }

  /** Four quarter arcs of ⌈segments/4⌉ edges each, so the outline touches the exact size. */
  #roundedRectangle(
    entry: Entry,
    node: Extract<DagNode, { op: "roundedRectangle" }>,
  ): CrossSection {
    const p = (member: string) => `${entry.pointer}/${member}`;
    const [x, y] = this.#vec(node.size, 2, p("size"));
    this.#ranged(Math.min(x, y), p("size"), 0, Infinity, "A rectangle side", true);
    const half = Math.min(x, y) / 2;
    let radius = this.#num(node.radius, p("radius"));
    // A radius computed as half the side may land an ulp above it: that is still a full round.
    if (radius > half && radius <= half * (1 + 1e-9)) radius = half;
    this.#ranged(radius, p("radius"), 0, half, "The corner radius");
    const segments = this.#segments(node.segments, 32, p("segments"));
    const center = this.#bool(node.center, false, p("center"));
    const [ox, oy] = center ? [-x / 2, -y / 2] : [0, 0];
    if (radius === 0) return this.#rt.CrossSection.square([x, y], center);
    const quarter = Math.max(1, Math.ceil(segments / 4));
    const corners: [number, number, number][] = [
      [x - radius, y - radius, 0],
      [radius, y - radius, 90],
      [radius, radius, 180],
      [x - radius, radius, 270],
    ];
    const points: [number, number][] = [];
    for (const [cx, cy, start] of corners) {
      for (let k = 0; k <= quarter; k++) {
        const a = start + 90 * k / quarter;
        const point: [number, number] = [
          ox + cx + radius * cosDegrees(a),
          oy + cy + radius * sinDegrees(a),
        ];
        const last = points[points.length - 1];
        if (!last || last[0] !== point[0] || last[1] !== point[1]) points.push(point);
      }
    }
    const [first, last] = [points[0], points[points.length - 1]];
    if (first[0] === last[0] && first[1] === last[1]) points.pop();
    return new this.#rt.CrossSection([points], "Positive");
  }

  #polygon(entry: Entry, node: Extract<DagNode, { op: "polygon" }>): CrossSection {
    const pointer = `${entry.pointer}/points`;
    if (
      !Array.isArray(node.points) || node.points.length < 3 ||
      node.points.length > this.#limits.maxPolygonPoints
    ) {
      fail("invalid_dag", "type_mismatch", pointer, "A polygon needs 3–1000 points.");
    }
    const points = node.points.map((point, i) => this.#vec(point, 2, `${pointer}/${i}`));
    let twiceArea = 0;
    for (let i = 0; i < points.length; i++) {
      const [ax, ay] = points[i];
      const [bx, by] = points[(i + 1) % points.length];
      twiceArea += ax * by - bx * ay;
    }
    if (!(twiceArea > 0)) {
      fail("render_failed", "not_counter_clockwise", pointer, "The polygon is clockwise or flat.");
    }
    return new this.#rt.CrossSection([points], "Positive");
  }

  /**
   * A transform `a` of a solid (manifold-3d's own op, which keeps faces outward) or of instances
   * (every instance transform becomes `a·T`). When `a` mirrors, instance transforms would mirror
   * too and a viewer drawing them with instancing would show inside-out faces, so the base solid
   * is mirrored once (F, across z = 0) and the transforms become `a·T·F`, which do not mirror.
   */
  #transform(
    entry: Entry,
    childArg: unknown,
    a: Mat4,
    apply: (m: Manifold) => Manifold,
  ): Value {
    const child = this.#solidOrInstances(childArg, `${entry.pointer}/child`);
    if (child.kind === "solid") return this.#newSolid(entry, apply(child.m));
    if (linearDeterminant(a) > 0) {
      this.#hold(entry, childArg);
      return {
        kind: "instances",
        m: child.m,
        transforms: child.transforms.map((t) => multiply(a, t)),
      };
    }
    const flipped = this.#own(entry, child.m.mirror([0, 0, 1]));
    return {
      kind: "instances",
      m: this.#checkSolid(flipped, entry.pointer),
      transforms: child.transforms.map((t) => multiply(multiply(a, t), FLIP_Z)),
    };
  }

  /** Instances: every placement applied after every transform the child already has. */
  #repeat(entry: Entry, childArg: unknown, placements: Mat4[]): InstancesValue {
    const child = this.#solidOrInstances(childArg, `${entry.pointer}/child`);
    const inner = child.kind === "solid" ? [identity()] : child.transforms;
    this.#checkInstances(placements.length * inner.length, entry.pointer);
    const transforms: Mat4[] = [];
    for (const placement of placements) {
      for (const t of inner) {
        transforms.push(child.kind === "solid" ? placement : multiply(placement, t));
      }
    }
    this.#hold(entry, childArg);
    return { kind: "instances", m: child.m, transforms };
  }

  #part(entry: Entry, node: Extract<DagNode, { op: "part" }>): PartValue {
    const p = (member: string) => `${entry.pointer}/${member}`;
    const child = this.#solidOrInstances(node.child, p("child"));
    const name = this.#str(node.name, p("name"));
    const color = this.#str(node.color, p("color"));
    if (!/^#[0-9a-f]{6}$/.test(color)) {
      fail("invalid_dag", "bad_color", p("color"), `"${color}" is not a lowercase #rrggbb color.`);
    }
    if (child.m.isEmpty()) {
      fail("render_failed", "empty_geometry", entry.pointer, `Part "${name}" has no geometry.`);
    }
    this.#hold(entry, node.child);
    const transforms = child.kind === "solid" ? [identity()] : child.transforms;
    return { kind: "part", name, color, m: child.m, transforms, pointer: entry.pointer };
  }
}

function safeDelete(object: Deletable): void {
  try {
    object.delete();
  } catch {
    // Already deleted (a bug elsewhere must not turn cleanup into a second failure).
  }
}

// ---------------------------------------------------------------------------------------------
// From parts to the scene

/** A part's mesh copied out of WASM memory, with what the scene needs from the solid. */
interface ExtractedPart {
  name: string;
  color: string;
  transforms: Mat4[];
  mesh: ExtractedMesh;
}
interface ExtractedMesh {
  positions: Float32Array;
  indices: Uint32Array;
  volume: number;
}

/** Copies every part's mesh out of WASM (once per distinct solid) and checks drawn triangles. */
function extractParts(assembly: AssemblyValue, limits: EvalLimits): ExtractedPart[] {
  const meshes = new Map<Manifold, ExtractedMesh>();
  let drawn = 0;
  return assembly.parts.map((part) => {
    drawn += part.m.numTri() * part.transforms.length;
    if (drawn > limits.maxTriangles) {
      fail(
        "invalid_dag",
        "too_many_triangles",
        part.pointer,
        `The scene draws ${drawn} triangles; the limit is ${limits.maxTriangles}.`,
      );
    }
    let mesh = meshes.get(part.m);
    if (!mesh) {
      const raw = part.m.getMesh();
      const vertexCount = raw.vertProperties.length / raw.numProp;
      const positions = new Float32Array(vertexCount * 3);
      for (let v = 0; v < vertexCount; v++) {
        for (let k = 0; k < 3; k++) {
          // `+ 0` turns -0 into 0: equal geometry must give equal bytes and hashes.
          positions[v * 3 + k] = raw.vertProperties[v * raw.numProp + k] + 0;
        }
      }
      mesh = { positions, indices: new Uint32Array(raw.triVerts), volume: part.m.volume() };
      meshes.set(part.m, mesh);
    }
    return { name: part.name, color: part.color, transforms: part.transforms, mesh };
  });
}

async function buildScene(
  extracted: ExtractedPart[],
): Promise<{ scene: Scene; exact: Map<string, ExactMesh> }> {
  const hashes = new Map<ExtractedMesh, string>();
  const meshes: Record<string, EncodedMesh> = {};
  const exact = new Map<string, ExactMesh>();
  const parts: ScenePart[] = [];
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  let triangles = 0;
  let volume = 0;
  for (const part of extracted) {
    const { positions, indices } = part.mesh;
    let hash = hashes.get(part.mesh);
    if (hash === undefined) {
      hash = await meshHash(positions, indices);
      hashes.set(part.mesh, hash);
      if (!Object.hasOwn(meshes, hash)) {
        meshes[hash] = encodeMesh(positions, indices);
        exact.set(hash, { positions, indices });
      }
    }
    for (const t of part.transforms) {
      volume += part.mesh.volume * Math.abs(linearDeterminant(t));
      growBox(min, max, positions, t);
    }
    triangles += (indices.length / 3) * part.transforms.length;
    parts.push({
      name: part.name,
      color: part.color,
      mesh: hash,
      instances: part.transforms.map((t) => t.map((v) => v + 0)), // -0 → 0
    });
  }
  return { scene: { parts, meshes, bbox: { min, max }, triangles, volume }, exact };
}

/** Grows [min, max] by every vertex of a mesh placed by `t` (exact, not a transformed box). */
function growBox(min: Vec3, max: Vec3, positions: Float32Array, t: Mat4): void {
  const linear = t[0] === 1 && t[1] === 0 && t[2] === 0 && t[4] === 0 && t[5] === 1 &&
    t[6] === 0 && t[8] === 0 && t[9] === 0 && t[10] === 1;
  const point: Vec3 = [0, 0, 0];
  for (let i = 0; i < positions.length; i += 3) {
    point[0] = positions[i];
    point[1] = positions[i + 1];
    point[2] = positions[i + 2];
    const q = linear
      ? [point[0] + t[12], point[1] + t[13], point[2] + t[14]]
      : applyToPoint(t, point);
    for (let k = 0; k < 3; k++) {
      if (q[k] < min[k]) min[k] = q[k];
      if (q[k] > max[k]) max[k] = q[k];
    }
  }
}
