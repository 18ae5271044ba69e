/**
 * Strict validation of a DAG v1 document (docs/dag.md) before anything evaluates it: shape, ops,
 * members, literal ranges, references, result types, cycles and the static limits. Work is linear
 * in the document (every array length is checked before it is walked, graph walks are iterative),
 * so a hostile 256 KiB body is refused in milliseconds without deep recursion.
 *
 * What each op accepts comes from its spec (`lib/kernel/ops/`): members, their kinds and ranges,
 * which are required, the result type, and the literal rules that span members. This file is the
 * generic machinery around them.
 *
 * Order of checks, so that "the first error" is well defined: the document's members; each node in
 * document order (id, op, members in document order, missing members, rules spanning members);
 * `output`; cycles; expanded cost; result types (nodes in document order); the output's type;
 * instance counts; part names.
 *
 * Rules on *referenced* values (a segment count that comes from a parameter, a radius computed by
 * `sub`) cannot be known from the JSON alone; the evaluator checks those when it computes them,
 * against the same specs.
 *
 * Runs in browsers too: no Deno APIs here, and no manifold-3d.
 */

import {
  isPlainObject,
  isValidName,
  jsonPointer,
  jsonTypeName,
  quoted,
} from "../dag/dag_errors.ts";
import { type DagLimits, expandedCostsInOrder, resolveDagLimits } from "../dag/dag_limits.ts";
import { COLOR_PATTERN, type Dag } from "../dag/dag_types.ts";
import { DAG_OPS, opSpec } from "./ops/mod.ts";
import {
  ASM,
  BOOL,
  describeType,
  failDag as fail,
  isRequired,
  literalType,
  type Member,
  NUM,
  type OpSpec,
  type Range,
  rangeText,
  rangeViolation,
  SOLID,
  SOLIDISH,
  STR,
} from "./ops/op_spec.ts";
import { assertInputValue, assertLiteral } from "./ops/parameters.ts";

export { DAG_OPS };
export { assertInputValue, assertLiteral };

/** How a range rule with its own reason is worded when a literal breaks it. */
const REASON_MESSAGES: Record<NonNullable<Range["reason"]>, string> = {
  division_by_zero: "division by zero",
};

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
    const spec = opSpec(opName);
    if (spec === undefined) fail("unknown_op", `${base}/op`, `unknown op ${quoted(opName)}`);
    for (const key of Object.keys(node)) {
      if (key === "op") continue;
      if (!Object.hasOwn(spec.members, key)) {
        const pointer = `${base}${jsonPointer(key)}`;
        fail("unknown_member", pointer, `${opName} has no member ${quoted(key)}`);
      }
      this.checkMember(i, spec.members[key], node[key], `${base}/${key}`);
    }
    for (const [key, member] of Object.entries(spec.members)) {
      if (isRequired(member) && !Object.hasOwn(node, key)) {
        fail("missing_member", `${base}/${key}`, `${opName} needs "${key}"`);
      }
    }
    this.checkAcrossMembers(spec, node, base);
  }

  private checkMember(i: number, member: Member, value: unknown, pointer: string): void {
    switch (member.kind) {
      case "num":
        return this.checkNum(i, value, pointer, memberRange(member));
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
        return this.checkNums(i, value as unknown[], pointer, memberRange(member));
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
    const broken = rangeViolation(value, range, this.limits);
    if (broken === "int") fail("not_an_integer", pointer, "expected an integer");
    if (broken !== undefined) {
      fail("out_of_range", pointer, `${value} is out of range (${rangeText(range, this.limits)})`);
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
      const what = only ? "a reference" : `a ${describeType(expect)} or a reference`;
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

  /** Range rules with a reason of their own, then the op's literal rules spanning members. */
  private checkAcrossMembers(spec: OpSpec, node: Record<string, unknown>, base: string): void {
    for (const [key, member] of Object.entries(spec.members)) {
      const range = member.kind === "num" ? member.range : undefined;
      const value = node[key];
      if (range?.reason && typeof value === "number" && rangeViolation(value, range, this.limits)) {
        fail(range.reason, `${base}/${key}`, REASON_MESSAGES[range.reason]);
      }
    }
    spec.check?.(node, (member) => `${base}/${member}`, this.limits);
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
      const result = this.spec(i).result;
      if (typeof result === "number") this.types[i] = result;
      else if (result === "param") this.types[i] = literalType(node.fallback);
      else if (result === "child") this.types[i] = this.argType(node.child) & SOLIDISH || SOLID;
      else this.types[i] = this.argType(node.then) | this.argType(node.else);
    }
  }

  private spec(i: number): OpSpec {
    return opSpec(this.nodes[this.ids[i]].op)!;
  }

  private argType(value: unknown): number {
    const literal = literalType(value);
    return literal !== 0 ? literal : this.types[this.index.get((value as { ref: string }).ref)!];
  }

  private checkTypes(id: string, i: number): void {
    for (const edge of this.edges[i]) {
      const actual = this.types[edge.target];
      if ((actual & ~edge.expect) !== 0) {
        const message = `expected ${describeType(edge.expect)}, "${this.ids[edge.target]}" is ${
          describeType(actual)
        }`;
        fail("type_mismatch", edge.pointer, message);
      }
    }
    this.spec(i).checkTypes?.(
      this.nodes[id],
      (arg) => this.argType(arg),
      (member) => `/nodes/${id}/${member}`,
    );
  }

  /** Instances multiply through nested repeats; literal counts are known, referenced ones count 1. */
  private checkInstances(order: number[]): void {
    const over = this.limits.maxInstancesPerPart + 1;
    const counts = new Float64Array(this.ids.length);
    const of = (value: unknown) => counts[this.index.get((value as { ref: string }).ref)!];
    const literal = (value: unknown) => typeof value === "number" ? value : 1;
    for (const i of order) {
      const node = this.nodes[this.ids[i]];
      const spec = this.spec(i);
      let n = 1;
      if (spec.instances !== undefined) {
        const count = node[spec.instances];
        const factors = Array.isArray(count) ? count : [count];
        n = factors.reduce((product: number, x) => product * literal(x), 1) * of(node.child);
      } else if (spec.result === "child") n = of(node.child);
      else if (spec.result === "select" && (this.types[i] & ~SOLIDISH) === 0) {
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

/** A member's range as checked with the member (rules with a reason of their own wait). */
function memberRange(member: Member): Range | undefined {
  const range = member.kind === "num" || member.kind === "vec" ? member.range : undefined;
  return range?.reason ? undefined : range;
}
