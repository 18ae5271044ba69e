/**
 * An op's members read through its spec: the default when absent, the kind (a number, a boolean,
 * a vector of numbers…), finite and within ±maxAbsNumber, then the member's range — the same
 * `rangeViolation` the validator applies to literals. The base of every op's evaluation context
 * (`op_context.ts`).
 *
 * Computed values break rules in the evaluator's words: integer limits (segments, counts,
 * divisions) as `invalid_dag` — what validation would have said of a literal — and other ranges
 * as `render_failed`, pointing at the member (a vector's whole member, an integer vector's
 * element).
 */
import { COLOR_PATTERN, isRef } from "../../dag/dag_types.ts";
import type { EvalErrorCode, EvalErrorReason } from "../eval_errors.ts";
import type { EvalLimits } from "../eval_limits.ts";
import { type Member, type Range, rangeViolation, resolveBound } from "./member_rules.ts";
import { evalFail, type Value, type WalkAccess } from "./values.ts";

/** Reads the members of one node of an op with members `K`. */
export class MemberReader<K extends string = string> {
  /** The limits of this evaluation. */
  readonly limits: EvalLimits;
  /** The node's pointer, `/nodes/<id>`. */
  readonly pointer: string;
  /** What the walk lends this node. */
  protected readonly walk: WalkAccess;
  readonly #members: Readonly<Record<K, Member>>;
  readonly #node: Readonly<Record<string, unknown>>;

  /** A reader of `node` (at `pointer`) of an op with these `members` (its spec's). */
  constructor(
    members: Readonly<Record<K, Member>>,
    node: Readonly<Record<string, unknown>>,
    pointer: string,
    limits: EvalLimits,
    walk: WalkAccess,
  ) {
    this.#members = members;
    this.#node = node;
    this.pointer = pointer;
    this.limits = limits;
    this.walk = walk;
  }

  /** A member's pointer. */
  at(member: K | `${K}/${number}`): string {
    return `${this.pointer}/${member}`;
  }

  /** A member as written in the node (a literal, a reference, or undefined). */
  raw(member: K): unknown {
    return this.#node[member];
  }

  /** Whether the node has the member. */
  has(member: K): boolean {
    return this.#node[member] !== undefined;
  }

  /** Throws an EvalError. */
  fail(code: EvalErrorCode, reason: EvalErrorReason, pointer: string, message: string): never {
    return evalFail(code, reason, pointer, message);
  }

  // -------------------------------------------------------------------------------------------
  // Scalars

  /** The value of a literal or of a referenced (evaluated) node. */
  arg(arg: unknown, pointer: string): Value {
    if (isRef(arg)) return this.walk.valueOf(arg.ref);
    if (typeof arg === "number" || typeof arg === "boolean" || typeof arg === "string") return arg;
    return evalFail("invalid_dag", "type_mismatch", pointer, "Expected a value or a reference.");
  }

  /** Any member's value (compare's operands, select's branches). */
  value(member: K): Value {
    return this.arg(this.#node[member], this.at(member));
  }

  /** A computed number must be finite and within ±maxAbsNumber. */
  checkNumber(value: number, pointer: string): number {
    if (!Number.isFinite(value)) {
      evalFail("render_failed", "nan", pointer, `A computed number is ${value}.`);
    }
    const max = this.limits.maxAbsNumber;
    if (Math.abs(value) > max) {
      evalFail(
        "render_failed",
        "out_of_range",
        pointer,
        `A computed number (${value}) is beyond ±${max}.`,
      );
    }
    return value;
  }

  /** A number argument (not range-checked: that is the member's business). */
  numAt(arg: unknown, pointer: string): number {
    const value = this.arg(arg, pointer);
    if (typeof value !== "number") {
      evalFail("invalid_dag", "type_mismatch", pointer, "Expected a number.");
    }
    return this.checkNumber(value, pointer);
  }

  /** A number member within its range (its default when absent). */
  num(member: K): number {
    const spec = this.#member(member);
    const raw = this.#node[member];
    const at = this.at(member);
    const value = raw === undefined && typeof spec.default === "number"
      ? spec.default
      : this.numAt(raw, at);
    if (spec.kind === "num" && spec.range) this.checkRange(value, spec.range, at, spec.what);
    return value;
  }

  /** A boolean member (its default when absent). */
  bool(member: K): boolean {
    const spec = this.#member(member);
    const raw = this.#node[member];
    if (raw === undefined && typeof spec.default === "boolean") return spec.default;
    const value = this.arg(raw, this.at(member));
    if (typeof value !== "boolean") {
      evalFail("invalid_dag", "type_mismatch", this.at(member), "Expected a boolean.");
    }
    return value;
  }

  /** A string member: within the string limit, a color if the member is one. */
  str(member: K): string {
    const spec = this.#member(member);
    const at = this.at(member);
    const value = this.arg(this.#node[member], at);
    if (typeof value !== "string") {
      evalFail("invalid_dag", "type_mismatch", at, "Expected a string.");
    }
    if (value.length > this.limits.maxStringLength) {
      evalFail("invalid_dag", "string_too_long", at, "A computed string is too long.");
    }
    if (spec.kind === "str" && spec.color && !COLOR_PATTERN.test(value)) {
      evalFail("invalid_dag", "bad_color", at, `"${value}" is not a lowercase #rrggbb color.`);
    }
    return value;
  }

  /** A choice member (its default when absent). */
  choice(member: K): string {
    const spec = this.#member(member);
    const raw = this.#node[member] ?? spec.default;
    if (spec.kind !== "choice" || typeof raw !== "string" || !spec.choices.includes(raw)) {
      evalFail("invalid_dag", "type_mismatch", this.at(member), `Unknown ${member} "${raw}".`);
    }
    return raw;
  }

  // -------------------------------------------------------------------------------------------
  // Vectors and lists

  /** A vector member of 2 numbers within its range (its default when absent). */
  vec2(member: K): [number, number] {
    return this.#vecMember(member, 2) as [number, number];
  }

  /** A vector member of 3 numbers within its range (its default when absent). */
  vec3(member: K): [number, number, number] {
    return this.#vecMember(member, 3) as [number, number, number];
  }

  /** A vector of `length` numbers, unchecked beyond numbers (polygon points). */
  vecAt(arg: unknown, length: number, pointer: string): number[] {
    if (!Array.isArray(arg) || arg.length !== length) {
      evalFail("invalid_dag", "type_mismatch", pointer, `Expected a vector of ${length} numbers.`);
    }
    return arg.map((item, i) => this.numAt(item, `${pointer}/${i}`));
  }

  /** A list member (numbers or references), of the length its spec allows. */
  list(member: K): unknown[] {
    const spec = this.#member(member);
    const max = spec.kind === "refs" || spec.kind === "nums" ? spec.max : 256;
    const raw = this.#node[member];
    if (!Array.isArray(raw) || raw.length < 1 || raw.length > max) {
      evalFail(
        "invalid_dag",
        "type_mismatch",
        this.at(member),
        `Expected a list of 1–${max} references.`,
      );
    }
    return raw;
  }

  /** A list member of numbers. */
  nums(member: K): number[] {
    return this.list(member).map((a, i) => this.numAt(a, `${this.at(member)}/${i}`));
  }

  /** A points member: 3–maxPolygonPoints [x, y] points. */
  points(member: K): [number, number][] {
    const raw = this.#node[member];
    const at = this.at(member);
    if (!Array.isArray(raw) || raw.length < 3 || raw.length > this.limits.maxPolygonPoints) {
      evalFail(
        "invalid_dag",
        "type_mismatch",
        at,
        `A polygon needs 3–${this.limits.maxPolygonPoints} points.`,
      );
    }
    return raw.map((point, i) => this.vecAt(point, 2, `${at}/${i}`) as [number, number]);
  }

  /** Keeps the node `arg` references alive as long as this one (this value aliases its). */
  hold(arg: unknown): void {
    if (isRef(arg)) this.walk.hold(arg.ref);
  }

  #member(member: K): Member {
    return this.#members[member];
  }

  #vecMember(member: K, n: 2 | 3): number[] {
    const spec = this.#member(member);
    const raw = this.#node[member];
    const at = this.at(member);
    const values = raw === undefined && Array.isArray(spec.default)
      ? [...spec.default]
      : this.vecAt(raw, n, at);
    const range = spec.kind === "vec" ? spec.range : undefined;
    if (range === undefined) return values;
    if (range.int) {
      values.forEach((v, i) => this.checkRange(v, range, `${at}/${i}`, spec.what));
      return values;
    }
    // A continuous rule is reported for the whole vector, by its smallest (or largest) element.
    const broken = values.map((v) => rangeViolation(v, range, this.limits));
    const worst = broken.includes("lower")
      ? Math.min(...values)
      : broken.includes("upper")
      ? Math.max(...values)
      : broken.includes("zero")
      ? 0
      : undefined;
    if (worst !== undefined) this.checkRange(worst, range, at, spec.what ?? member);
    return values;
  }

  /**
   * A computed value against a range (a member's, or one an op works out, like a corner radius
   * ≤ half the side), in the evaluator's words; `what` names it in the message.
   */
  checkRange(value: number, range: Range, pointer: string, what?: string): void {
    const broken = rangeViolation(value, range, this.limits);
    if (broken === undefined) return;
    const subject = what ?? pointer.slice(pointer.lastIndexOf("/") + 1);
    const ge = range.ge === undefined ? undefined : resolveBound(range.ge, this.limits);
    const le = range.le === undefined ? undefined : resolveBound(range.le, this.limits);
    if (range.int) {
      if (broken === "int") {
        evalFail("invalid_dag", "not_an_integer", pointer, `${value} is not an integer.`);
      }
      evalFail("invalid_dag", "out_of_range", pointer, `${value} is outside ${ge}–${le}.`);
    }
    if (broken === "zero") {
      if (range.reason === "division_by_zero") {
        evalFail("render_failed", "division_by_zero", pointer, "Division by a computed zero.");
      }
      evalFail("render_failed", "out_of_range", pointer, `${subject} is zero.`);
    }
    const lower = range.gt !== undefined ? `> ${range.gt}` : ge !== undefined ? `≥ ${ge}` : "";
    const upper = le === undefined ? "" : lower ? ` and ≤ ${le}` : `≤ ${le}`;
    evalFail(
      "render_failed",
      "out_of_range",
      pointer,
      `${subject} is ${value}; it must be ${lower}${upper}.`,
    );
  }
}
