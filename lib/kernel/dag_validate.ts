/**
 * Strict validation of a DAG v1 document (docs/dag.md) before anything evaluates it: shape, ops,
 * members, literal ranges, references, result types, cycles and the static limits. Work is linear
 * in the document (every array length is checked before it is walked, graph walks are iterative),
 * so a hostile 256 KiB body is refused in milliseconds without deep recursion.
 *
 * Order of checks, so that "the first error" is well defined: the document's members; each node in
 * document order (id, op, members in document order, missing members, rules spanning members);
 * `output`; cycles; expanded cost; result types (nodes in document order); the output's type;
 * instance counts; part names.
 *
 * Rules on *referenced* values (a segment count that comes from a parameter, a radius computed by
 * `sub`) cannot be known from the JSON alone; the evaluator checks those when it computes them.
 *
 * Runs in browsers too: no Deno APIs here.
 */

import {
  DagError,
  type DagErrorReason,
  isPlainObject,
  isValidName,
  jsonPointer,
  jsonTypeName,
  quoted,
} from "./dag_errors.ts";
import { type DagLimits, expandedCostsInOrder, resolveDagLimits } from "./dag_limits.ts";
import type { Dag } from "./dag_types.ts";

// Result types as bits, so "solid or instances" is one mask and a check is one AND.
const NUM = 1, BOOL = 2, STR = 4, PROFILE = 8, SOLID = 16, INST = 32, PART = 64, ASM = 128;
const SOLIDISH = SOLID | INST;
const TYPE_NAMES: [number, string][] = [
  [NUM, "number"],
  [BOOL, "boolean"],
  [STR, "string"],
  [PROFILE, "profile"],
  [SOLID, "solid"],
  [INST, "instances"],
  [PART, "part"],
  [ASM, "assembly"],
];

/** Lowercase `#rrggbb`, the only color spelling the format accepts. */
export const COLOR_PATTERN: RegExp = /^#[0-9a-f]{6}$/;

/** Literal rules for a number member; the `segments`/`repeat` flags take their bounds from limits. */
interface Range {
  gt?: number;
  ge?: number;
  le?: number;
  int?: boolean;
  nonZero?: boolean;
  segments?: boolean;
  repeat?: boolean;
}

type Member =
  | { kind: "num"; range?: Range }
  | { kind: "bool" }
  | { kind: "str"; color?: boolean }
  | { kind: "choice"; choices: readonly string[] }
  | { kind: "vec"; n: 2 | 3; range?: Range }
  | { kind: "nums"; min: number; max: number }
  | { kind: "points" }
  | { kind: "ref"; type: number }
  | { kind: "refs"; type: number; min: number; max: number }
  | { kind: "value" } // a number/boolean/string literal or a reference to any node
  | { kind: "literal" } // a number/boolean/string literal only (ParameterInput)
  | { kind: "name" }; // a parameter name

/** How a node's result type is found: fixed, the child's, the branches', the fallback's. */
type Result = number | "child" | "select" | "param";

interface OpSpec {
  result: Result;
  required: readonly string[];
  members: Readonly<Record<string, Member>>;
}

const num = (range?: Range): Member => ({ kind: "num", range });
const vec = (n: 2 | 3, range?: Range): Member => ({ kind: "vec", n, range });
const ref = (type: number): Member => ({ kind: "ref", type });
const refs = (type: number, max: number): Member => ({ kind: "refs", type, min: 1, max });
const BOOL_ARG: Member = { kind: "bool" };
const POSITIVE: Range = { gt: 0 };
const SEGMENTS: Range = { int: true, segments: true };
const DEGREES: Range = { gt: 0, le: 360 };

function op(result: Result, required: string[], members: Record<string, Member>): OpSpec {
  return { result, required, members };
}
const nary = op(NUM, ["args"], { args: { kind: "nums", min: 1, max: 64 } });
const binary = op(NUM, ["a", "b"], { a: num(), b: num() });
const solids = op(SOLID, ["children"], { children: refs(SOLIDISH, 256) });
const transform = (member: string, range?: Range) =>
  op("child", ["child", member], { child: ref(SOLIDISH), [member]: vec(3, range) });

/** Every op of docs/dag.md with its members; hasOwn-guarded lookups only. */
const OPS: Readonly<Record<string, OpSpec>> = Object.freeze({
  ParameterInput: op("param", ["parameter", "fallback"], {
    parameter: { kind: "name" },
    fallback: { kind: "literal" },
    value: { kind: "literal" },
  }),
  add: nary,
  mul: nary,
  min: nary,
  max: nary,
  sub: binary,
  div: binary,
  clamp: op(NUM, ["value", "min", "max"], { value: num(), min: num(), max: num() }),
  round: op(NUM, ["value"], {
    value: num(),
    step: num(POSITIVE),
    mode: { kind: "choice", choices: ["nearest", "floor", "ceil"] },
  }),
  compare: op(BOOL, ["test", "a", "b"], {
    test: { kind: "choice", choices: ["lt", "le", "gt", "ge", "eq", "ne"] },
    a: { kind: "value" },
    b: { kind: "value" },
  }),
  select: op("select", ["cond", "then", "else"], {
    cond: BOOL_ARG,
    then: { kind: "value" },
    else: { kind: "value" },
  }),
  rectangle: op(PROFILE, ["size"], { size: vec(2, POSITIVE), center: BOOL_ARG }),
  roundedRectangle: op(PROFILE, ["size", "radius"], {
    size: vec(2, POSITIVE),
    radius: num({ ge: 0 }),
    segments: num(SEGMENTS),
    center: BOOL_ARG,
  }),
  circle: op(PROFILE, ["radius"], { radius: num(POSITIVE), segments: num(SEGMENTS) }),
  polygon: op(PROFILE, ["points"], { points: { kind: "points" } }),
  box: op(SOLID, ["size"], { size: vec(3, POSITIVE), center: BOOL_ARG }),
  cylinder: op(SOLID, ["height", "radius"], {
    height: num(POSITIVE),
    radius: num(POSITIVE),
    radiusTop: num({ ge: 0 }),
    segments: num(SEGMENTS),
    center: BOOL_ARG,
  }),
  sphere: op(SOLID, ["radius"], { radius: num(POSITIVE), segments: num(SEGMENTS) }),
  extrude: op(SOLID, ["profile", "height"], {
    profile: ref(PROFILE),
    height: num(POSITIVE),
    twist: num(),
    scaleTop: vec(2, { ge: 0 }),
    divisions: num({ int: true, ge: 0, le: 256 }),
    center: BOOL_ARG,
  }),
  revolve: op(SOLID, ["profile"], {
    profile: ref(PROFILE),
    segments: num(SEGMENTS),
    degrees: num(DEGREES),
  }),
  union: solids,
  intersection: solids,
  hull: solids,
  difference: op(SOLID, ["base", "subtract"], {
    base: ref(SOLIDISH),
    subtract: refs(SOLIDISH, 256),
  }),
  translate: transform("offset"),
  rotate: transform("degrees"),
  scale: transform("factor", { nonZero: true }),
  mirror: transform("normal"),
  linearRepeat: op(INST, ["child", "count", "step"], {
    child: ref(SOLIDISH),
    count: num({ int: true, ge: 1, repeat: true }),
    step: vec(3),
  }),
  gridRepeat: op(INST, ["child", "count", "step"], {
    child: ref(SOLIDISH),
    count: vec(2, { int: true, ge: 1 }),
    step: vec(2),
  }),
  polarRepeat: op(INST, ["child", "count"], {
    child: ref(SOLIDISH),
    count: num({ int: true, ge: 1, repeat: true }),
    degrees: num(DEGREES),
  }),
  part: op(PART, ["child", "name", "color"], {
    child: ref(SOLIDISH),
    name: { kind: "str" },
    color: { kind: "str", color: true },
  }),
  assembly: op(ASM, ["parts"], { parts: refs(PART, 64) }),
});

/** Every op name the format defines. */
export const DAG_OPS: readonly string[] = Object.freeze(Object.keys(OPS));

/** A reference found in a node: which node it names, where it is, what it must be. */
interface Edge {
  target: number;
  pointer: string;
  expect: number;
}

/**
 * Validates a DAG v1 document and returns it typed (the same object: nothing is copied or
 * added). Throws the first `DagError` (`invalid_dag`) with a pointer to the offending member.
 *
 * @example
 * ```ts
 * const dag = validateDag(JSON.parse(body)); // throws DagError("invalid_dag", reason, pointer)
 * ```
 */
export function validateDag(input: unknown, options: Partial<DagLimits> = {}): Dag {
  return new DagValidator(resolveDagLimits(options)).run(input);
}

/**
 * The check `validateDag` applies to a literal-only member (a ParameterInput's `fallback` and
 * `value`): a finite number within ±`maxAbsNumber`, a string of at most `maxStringLength`, or a
 * boolean; anything else throws its `DagError`.
 *
 * @example
 * ```ts
 * assertLiteral(node.value, "/nodes/width/value", resolveDagLimits({}));
 * ```
 */
export function assertLiteral(value: unknown, pointer: string, limits: DagLimits): void {
  if (typeof value === "number") {
    if (!(Number.isFinite(value) && Math.abs(value) <= limits.maxAbsNumber)) {
      fail("out_of_range", pointer, `numbers are finite with |x| ≤ ${limits.maxAbsNumber}`);
    }
  } else if (typeof value === "string") {
    if (value.length > limits.maxStringLength) {
      fail("string_too_long", pointer, `strings are at most ${limits.maxStringLength} long`);
    }
  } else if (typeof value !== "boolean") {
    fail("type_mismatch", pointer, "expected a number, boolean or string literal");
  }
}

/**
 * The checks `validateDag` applies to a ParameterInput's `value`: a literal (`assertLiteral`) of
 * the same type as the node's `fallback`.
 *
 * @example
 * ```ts
 * assertInputValue(node.value, node.fallback, "/nodes/width/value", resolveDagLimits({}));
 * ```
 */
export function assertInputValue(
  value: unknown,
  fallback: unknown,
  pointer: string,
  limits: DagLimits,
): void {
  assertLiteral(value, pointer, limits);
  if (literalType(value) !== literalType(fallback)) {
    fail("type_mismatch", pointer, "value must have the fallback's type");
  }
}

/** The bitmask result type of a literal argument, or 0 when it is a reference. */
function literalType(value: unknown): number {
  if (typeof value === "number") return NUM;
  if (typeof value === "boolean") return BOOL;
  if (typeof value === "string") return STR;
  return 0;
}

function describe(mask: number): string {
  const names = TYPE_NAMES.filter(([bit]) => (mask & bit) !== 0).map(([, name]) => name);
  return names.length === 0 ? "nothing" : names.join(" or ");
}

function fail(reason: DagErrorReason, pointer: string, message: string): never {
  throw new DagError("invalid_dag", reason, pointer, message);
}

class DagValidator {
  private ids: string[] = [];
  private index = new Map<string, number>();
  private edges: Edge[][] = [];
  private nodes: Record<string, Record<string, unknown>> = {};
  private types: number[] = [];

  constructor(private readonly limits: DagLimits) {}

  run(input: unknown): Dag {
    if (!isPlainObject(input)) fail("not_an_object", "", "the DAG must be a JSON object");
    for (const key of Object.keys(input)) {
      if (key !== "dag" && key !== "nodes" && key !== "output") {
        fail("unknown_member", jsonPointer(key), `unknown member ${quoted(key)}`);
      }
    }
    for (const key of ["dag", "nodes", "output"]) {
      if (!Object.hasOwn(input, key)) fail("missing_member", `/${key}`, `"${key}" is required`);
    }
    if (input.dag !== 1) fail("unsupported_version", "/dag", "only DAG version 1 is supported");
    const nodes = input.nodes;
    if (!isPlainObject(nodes)) fail("not_an_object", "/nodes", "nodes must be a JSON object");
    this.ids = Object.keys(nodes);
    if (this.ids.length > this.limits.maxNodes) {
      fail("too_many_nodes", "/nodes", `more than ${this.limits.maxNodes} nodes`);
    }
    this.nodes = nodes as Record<string, Record<string, unknown>>;
    this.ids.forEach((id, i) => {
      if (!isValidName(id)) {
        fail("bad_node_id", jsonPointer("nodes", id), "node ids are 1–64 of [A-Za-z0-9_.-]");
      }
      this.index.set(id, i);
    });
    this.ids.forEach((id, i) => this.checkNode(id, i));
    const output = input.output;
    if (typeof output !== "string") fail("type_mismatch", "/output", "output must be a node id");
    const outIndex = this.index.get(output);
    if (outIndex === undefined) fail("unknown_reference", "/output", `no node ${quoted(output)}`);
    const order = this.dependencyOrder();
    this.checkExpandedCost(order);
    this.inferTypes(order);
    this.ids.forEach((id, i) => this.checkTypes(id, i));
    if (this.types[outIndex] !== ASM) {
      fail("output_not_assembly", "/output", `output ${quoted(output)} is not an assembly`);
    }
    this.checkInstances(order);
    this.ids.forEach((id) => this.checkPartNames(id));
    return input as unknown as Dag;
  }

  private checkNode(id: string, i: number): void {
    const base = `/nodes/${id}`; // ids are validated: no "~" or "/" to escape
    const node = this.nodes[id];
    this.edges[i] = [];
    if (!isPlainObject(node)) fail("not_an_object", base, `node "${id}" must be a JSON object`);
    if (!Object.hasOwn(node, "op")) fail("missing_member", `${base}/op`, `node "${id}" has no op`);
    const opName = node.op;
    if (typeof opName !== "string" || !Object.hasOwn(OPS, opName)) {
      fail("unknown_op", `${base}/op`, `unknown op ${quoted(opName)}`);
    }
    const spec = OPS[opName];
    for (const key of Object.keys(node)) {
      if (key === "op") continue;
      if (!Object.hasOwn(spec.members, key)) {
        const pointer = `${base}${jsonPointer(key)}`;
        fail("unknown_member", pointer, `${opName} has no member ${quoted(key)}`);
      }
      this.checkMember(i, spec.members[key], node[key], `${base}/${key}`);
    }
    for (const key of spec.required) {
      if (!Object.hasOwn(node, key)) {
        fail("missing_member", `${base}/${key}`, `${opName} needs "${key}"`);
      }
    }
    this.checkAcrossMembers(opName, node, base);
  }

  private checkMember(i: number, member: Member, value: unknown, pointer: string): void {
    switch (member.kind) {
      case "num":
        return this.checkNum(i, value, pointer, member.range);
      case "bool":
        if (typeof value !== "boolean") this.checkRef(i, value, pointer, BOOL);
        return;
      case "str":
        if (typeof value !== "string") return this.checkRef(i, value, pointer, STR);
        this.checkString(value, pointer);
        if (member.color && !COLOR_PATTERN.test(value)) {
          fail("bad_color", pointer, "colors are lowercase #rrggbb");
        }
        return;
      case "choice":
        if (typeof value !== "string" || !member.choices.includes(value)) {
          fail("bad_choice", pointer, `expected one of ${member.choices.join(", ")}`);
        }
        return;
      case "vec":
        this.checkArray(value, pointer, member.n, member.n);
        return this.checkNums(i, value as unknown[], pointer, member.range);
      case "nums":
        this.checkArray(value, pointer, member.min, member.max);
        return this.checkNums(i, value as unknown[], pointer);
      case "points": {
        this.checkArray(value, pointer, 3, this.limits.maxPolygonPoints);
        const points = value as unknown[];
        for (let k = 0; k < points.length; k++) {
          const at = `${pointer}/${k}`;
          this.checkArray(points[k], at, 2, 2);
          this.checkNums(i, points[k] as unknown[], at);
        }
        return;
      }
      case "ref":
        return this.checkRef(i, value, pointer, member.type, true);
      case "refs":
        this.checkArray(value, pointer, member.min, member.max);
        (value as unknown[]).forEach((x, k) =>
          this.checkRef(i, x, `${pointer}/${k}`, member.type, true)
        );
        return;
      case "literal":
        return assertLiteral(value, pointer, this.limits);
      case "value":
        if (typeof value === "number") return this.checkNum(i, value, pointer);
        if (typeof value === "string") return this.checkString(value, pointer);
        if (typeof value === "boolean") return;
        return this.checkRef(i, value, pointer, ~0);
      case "name":
        if (typeof value !== "string") fail("type_mismatch", pointer, "expected a parameter name");
        if (!isValidName(value)) {
          fail("bad_parameter_name", pointer, "parameter names are 1–64 of [A-Za-z0-9_.-]");
        }
        return;
    }
  }

  /** Elements of a checked array; pointers are built only for references and errors. */
  private checkNums(i: number, values: unknown[], pointer: string, range?: Range): void {
    for (let k = 0; k < values.length; k++) {
      const x = values[k];
      if (typeof x === "number" && this.plainNumberOk(x) && range === undefined) continue;
      this.checkNum(i, x, `${pointer}/${k}`, range);
    }
  }

  private plainNumberOk(x: number): boolean {
    return Number.isFinite(x) && Math.abs(x) <= this.limits.maxAbsNumber;
  }

  private checkNum(i: number, value: unknown, pointer: string, range?: Range): void {
    if (typeof value !== "number") return this.checkRef(i, value, pointer, NUM);
    if (!this.plainNumberOk(value)) {
      fail("out_of_range", pointer, `numbers are finite with |x| ≤ ${this.limits.maxAbsNumber}`);
    }
    if (range === undefined) return;
    if (range.int && !Number.isInteger(value)) {
      fail("not_an_integer", pointer, "expected an integer");
    }
    const { minSegments, maxSegments, maxRepeatCount } = this.limits;
    const ge = range.segments ? minSegments : range.ge;
    const le = range.segments ? maxSegments : range.repeat ? maxRepeatCount : range.le;
    if (
      (range.gt !== undefined && !(value > range.gt)) || (ge !== undefined && value < ge) ||
      (le !== undefined && value > le) || (range.nonZero && value === 0)
    ) {
      const bounds = [
        range.gt !== undefined ? `> ${range.gt}` : "",
        ge !== undefined ? `≥ ${ge}` : "",
        le !== undefined ? `≤ ${le}` : "",
        range.nonZero ? "non-zero" : "",
      ].filter(Boolean).join(", ");
      fail("out_of_range", pointer, `${value} is out of range (${bounds})`);
    }
  }

  private checkString(value: string, pointer: string): void {
    if (value.length > this.limits.maxStringLength) {
      fail("string_too_long", pointer, `strings are at most ${this.limits.maxStringLength} long`);
    }
  }

  private checkArray(value: unknown, pointer: string, min: number, max: number): void {
    if (!Array.isArray(value)) fail("type_mismatch", pointer, `expected an array`);
    if (value.length < min || value.length > max) {
      const want = min === max ? `${min}` : `${min}–${max}`;
      fail("bad_length", pointer, `expected ${want} elements, got ${value.length}`);
    }
  }

  /** A `{ref}` argument; `only` when no literal is allowed here (geometry members). */
  private checkRef(i: number, value: unknown, pointer: string, expect: number, only = false) {
    if (!isPlainObject(value)) {
      const what = only ? "a reference" : `a ${describe(expect)} or a reference`;
      fail("type_mismatch", pointer, `expected ${what}, got ${jsonTypeName(value)}`);
    }
    const keys = Object.keys(value);
    if (keys.length !== 1 || keys[0] !== "ref" || typeof value.ref !== "string") {
      fail("bad_reference", pointer, 'a reference is exactly {"ref": "<node id>"}');
    }
    const target = this.index.get(value.ref);
    if (target === undefined) fail("unknown_reference", pointer, `no node ${quoted(value.ref)}`);
    this.edges[i].push({ target, pointer, expect });
  }

  /** Literal rules that involve more than one member. */
  private checkAcrossMembers(opName: string, node: Record<string, unknown>, base: string): void {
    const isNum = (x: unknown): x is number => typeof x === "number";
    if (opName === "ParameterInput" && Object.hasOwn(node, "value")) {
      assertInputValue(node.value, node.fallback, `${base}/value`, this.limits);
    } else if (opName === "div" && node.b === 0) {
      fail("division_by_zero", `${base}/b`, "division by zero");
    } else if (opName === "clamp" && isNum(node.min) && isNum(node.max) && node.min > node.max) {
      fail("out_of_range", `${base}/max`, "clamp max is below min");
    } else if (opName === "roundedRectangle") {
      const [x, y] = node.size as unknown[];
      if (isNum(node.radius) && isNum(x) && isNum(y) && node.radius > Math.min(x, y) / 2) {
        fail("out_of_range", `${base}/radius`, "radius exceeds half the smaller side");
      }
    } else if (opName === "mirror" && (node.normal as unknown[]).every((x) => x === 0)) {
      fail("out_of_range", `${base}/normal`, "the mirror normal is zero");
    } else if (opName === "gridRepeat") {
      const [nx, ny] = node.count as unknown[];
      if (isNum(nx) && isNum(ny) && nx * ny > this.limits.maxGridCount) {
        fail("too_many_instances", `${base}/count`, `grids hold ≤ ${this.limits.maxGridCount}`);
      }
    } else if (opName === "polygon") {
      const points = node.points as unknown[][];
      if (points.every(([x, y]) => isNum(x) && isNum(y))) {
        let twiceArea = 0; // shoelace formula
        for (let k = 0; k < points.length; k++) {
          const [x0, y0] = points[k] as number[];
          const [x1, y1] = points[(k + 1) % points.length] as number[];
          twiceArea += x0 * y1 - x1 * y0;
        }
        if (!(twiceArea > 0)) {
          fail("not_counter_clockwise", `${base}/points`, "polygon points must wind CCW");
        }
      }
    }
  }

  /** Dependencies-first order by iterative DFS; a reference back onto the DFS stack is a cycle. */
  private dependencyOrder(): number[] {
    const state = new Uint8Array(this.ids.length); // 0 unseen, 1 on the stack, 2 done
    const order: number[] = [];
    const stack: number[] = [];
    const next: number[] = [];
    for (let root = 0; root < this.ids.length; root++) {
      if (state[root] !== 0) continue;
      state[root] = 1;
      stack.push(root);
      next.push(0);
      while (stack.length > 0) {
        const top = stack.length - 1;
        const node = stack[top];
        const edges = this.edges[node];
        if (next[top] < edges.length) {
          const edge = edges[next[top]++];
          if (state[edge.target] === 1) {
            fail(
              "cycle",
              edge.pointer,
              `references form a cycle through "${this.ids[edge.target]}"`,
            );
          }
          if (state[edge.target] === 0) {
            state[edge.target] = 1;
            stack.push(edge.target);
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

  private checkExpandedCost(order: number[]): void {
    const cap = this.limits.maxExpandedCost;
    const targets = this.edges.map((edges) => edges.map((edge) => edge.target));
    const costs = expandedCostsInOrder(order, targets, cap);
    const message = `the DAG expands to more than ${cap} nodes`;
    for (const i of order) {
      if (costs[i] > cap) fail("expanded_cost", jsonPointer("nodes", this.ids[i]), message);
    }
    const referenced = new Uint8Array(this.ids.length);
    for (const list of targets) for (const j of list) referenced[j] = 1;
    let total = 0;
    for (let i = 0; i < this.ids.length; i++) if (!referenced[i]) total += costs[i];
    if (total > cap) fail("expanded_cost", "/nodes", message);
  }

  /** Result types, dependencies first; disagreements are reported later, in document order. */
  private inferTypes(order: number[]): void {
    for (const i of order) {
      const node = this.nodes[this.ids[i]];
      const result = OPS[node.op as string].result;
      if (typeof result === "number") this.types[i] = result;
      else if (result === "param") this.types[i] = literalType(node.fallback);
      else if (result === "child") this.types[i] = this.argType(node.child) & SOLIDISH || SOLID;
      else this.types[i] = this.argType(node.then) | this.argType(node.else);
    }
  }

  private argType(value: unknown): number {
    const literal = literalType(value);
    return literal !== 0 ? literal : this.types[this.index.get((value as { ref: string }).ref)!];
  }

  private checkTypes(id: string, i: number): void {
    const node = this.nodes[id];
    const base = `/nodes/${id}`;
    for (const edge of this.edges[i]) {
      const actual = this.types[edge.target];
      if ((actual & ~edge.expect) !== 0) {
        const message = `expected ${describe(edge.expect)}, "${this.ids[edge.target]}" is ${
          describe(actual)
        }`;
        fail("type_mismatch", edge.pointer, message);
      }
    }
    if (node.op === "compare") {
      const a = this.argType(node.a), b = this.argType(node.b);
      const ordered = !["eq", "ne"].includes(node.test as string);
      const allowed = ordered ? NUM : NUM | BOOL | STR;
      if ((a & ~allowed) !== 0 || !single(a)) {
        fail("type_mismatch", `${base}/a`, `compare ${node.test} needs ${describe(allowed)}`);
      }
      if (a !== b) fail("type_mismatch", `${base}/b`, `expected ${describe(a)} like a`);
    } else if (node.op === "select") {
      const a = this.argType(node.then), b = this.argType(node.else);
      // One kind: identical types, except that solids and instances mix (both are "solid").
      const agree = (a === b && single(a)) || ((a | b) & ~SOLIDISH) === 0;
      if (!agree) {
        fail("type_mismatch", `${base}/else`, `else is ${describe(b)}, then is ${describe(a)}`);
      }
    }
  }

  /** Instances multiply through nested repeats; literal counts are known, referenced ones count 1. */
  private checkInstances(order: number[]): void {
    const over = this.limits.maxInstancesPerPart + 1;
    const counts = new Float64Array(this.ids.length);
    const of = (value: unknown) => counts[this.index.get((value as { ref: string }).ref)!];
    const literal = (value: unknown) => typeof value === "number" ? value : 1;
    for (const i of order) {
      const node = this.nodes[this.ids[i]];
      let n = 1;
      if (node.op === "linearRepeat" || node.op === "polarRepeat") {
        n = literal(node.count) * of(node.child);
      } else if (node.op === "gridRepeat") {
        const [nx, ny] = node.count as unknown[];
        n = literal(nx) * literal(ny) * of(node.child);
      } else if (OPS[node.op as string].result === "child") n = of(node.child);
      else if (node.op === "select" && (this.types[i] & ~SOLIDISH) === 0) {
        n = Math.max(of(node.then), of(node.else));
      }
      counts[i] = Math.min(n, over);
      if (counts[i] >= over) {
        const message = `more than ${over - 1} instances in one part`;
        fail("too_many_instances", jsonPointer("nodes", this.ids[i], "count"), message);
      }
    }
  }

  /** Names must be unique within an assembly; names that come from references are checked later. */
  private checkPartNames(id: string): void {
    const node = this.nodes[id];
    if (node.op !== "assembly") return;
    const seen = new Set<string>();
    const names = new Set<string>();
    (node.parts as { ref: string }[]).forEach((part, k) => {
      const target = this.nodes[part.ref];
      const name = target.op === "part" && typeof target.name === "string"
        ? target.name
        : undefined;
      if (seen.has(part.ref) || (name !== undefined && names.has(name))) {
        fail("duplicate_part_name", jsonPointer("nodes", id, "parts", k), "part names repeat");
      }
      seen.add(part.ref);
      if (name !== undefined) names.add(name);
    });
  }
}

/** Whether a type mask names exactly one type. */
function single(mask: number): boolean {
  return mask !== 0 && (mask & (mask - 1)) === 0;
}
