/**
 * What a DAG op is, as data: its members (kind, range, default: `member_rules.ts`), its result
 * type, a one-line doc, the literal rules that span members — and, next to them in each
 * `ops/<family>.ts`, how it is evaluated. Everything else reads these specs: `validateDag`
 * (members, ranges, result types), the evaluator (the same ranges on computed values, through
 * `rangeViolation`), the generated `lib/dag/dag.schema.json` and the op tables of docs/dag.md
 * (`dag_schema_gen.ts`), and the test that holds cadparam's emitter to them.
 *
 * No manifold-3d here (types only): the hub validates on its request thread.
 */
import { DagError, type DagErrorReason } from "../../dag/dag_errors.ts";
import type { DagLimits } from "../../dag/dag_limits.ts";
import type { Member, MemberOptions, Range } from "./member_rules.ts";
import type { OpContext } from "./op_context.ts";
import type { Value } from "./values.ts";

export {
  type Bound,
  isRequired,
  type LimitName,
  type Member,
  type MemberOptions,
  type Range,
  rangeText,
  rangeViolation,
  resolveBound,
  type Violation,
} from "./member_rules.ts";

// Result types as bits, so "solid or instances" is one mask and a check is one AND.
/** A number. */
export const NUM = 1;
/** A boolean. */
export const BOOL = 2;
/** A string. */
export const STR = 4;
/** A 2D profile. */
export const PROFILE = 8;
/** A solid. */
export const SOLID = 16;
/** Instances: one solid and a list of placements. */
export const INST = 32;
/** A named, colored part. */
export const PART = 64;
/** The output: a list of parts. */
export const ASM = 128;
/** Wherever a solid is expected, instances are accepted too. */
export const SOLIDISH = SOLID | INST;

/** The name of every type bit, in bit order. */
export const TYPE_NAMES: readonly (readonly [number, string])[] = [
  [NUM, "number"],
  [BOOL, "boolean"],
  [STR, "string"],
  [PROFILE, "profile"],
  [SOLID, "solid"],
  [INST, "instances"],
  [PART, "part"],
  [ASM, "assembly"],
];

/** The type bit of a literal argument, or 0 when it is not a literal (a reference). */
export function literalType(value: unknown): number {
  if (typeof value === "number") return NUM;
  if (typeof value === "boolean") return BOOL;
  if (typeof value === "string") return STR;
  return 0;
}

/** Whether a type mask names exactly one type. */
export function singleType(mask: number): boolean {
  return mask !== 0 && (mask & (mask - 1)) === 0;
}

/** The type names of a mask, e.g. "solid or instances" ("nothing" for 0). */
export function describeType(mask: number): string {
  const names = TYPE_NAMES.filter(([bit]) => (mask & bit) !== 0).map(([, name]) => name);
  return names.length === 0 ? "nothing" : names.join(" or ");
}

/** How a node's result type is found: fixed, the child's, the branches', the fallback's. */
export type Result = number | "child" | "select" | "param";

/** The docs section an op is listed in. */
export type Section = "expressions" | "profiles" | "solids" | "repeats" | "output";

/** Reads references the evaluator has (or has not yet) computed, for `needs`. */
export interface Peek {
  /** Whether a reference is evaluated (literals always are). */
  done(arg: unknown): boolean;
  /** The value of a literal or of an evaluated reference. */
  value(arg: unknown): unknown;
}

/** An op's members by name, as found in a node (not yet known to be literals). */
export type Members<K extends string> = Readonly<Record<K, unknown>>;

/** One op: what validation, evaluation, the schema and the docs know about it. */
export interface OpSpec<K extends string = string> {
  /** Docs and schema: what the node makes, one line. */
  readonly doc: string;
  /** The docs section that lists it. */
  readonly section: Section;
  /** Its result type. */
  readonly result: Result;
  /** Its members, in the order docs and the schema list them. */
  readonly members: Readonly<Record<K, Member>>;
  /** The member whose literal value(s) multiply the child's instances (repeats). */
  readonly instances?: K;
  /** Literal rules spanning members (validateDag, after every required member is there). */
  check?(node: Members<K>, at: (member: K) => string, limits: DagLimits): void;
  /** Type rules beyond each reference's own (compare, select), on inferred argument types. */
  checkTypes?(node: Members<K>, typeOf: (arg: unknown) => number, at: (member: K) => string): void;
  /** The references evaluation needs first, when not all of them (select: one branch). */
  needs?(node: Members<K>, peek: Peek, at: (member: K) => string): unknown[];
  /** Evaluates a node whose needed references are evaluated. */
  evaluate(ctx: OpContext<K>): Value;
}

/**
 * Declares one op; the member names type the evaluation context, so `ctx.num("radiuss")` does
 * not compile.
 *
 * @example
 * ```ts
 * const sphere = defineOp({
 *   doc: "Sphere about the origin.", section: "solids", result: SOLID,
 *   members: { radius: num(POSITIVE), segments: segments(48) },
 *   evaluate: (ctx) =>
 *     ctx.newSolid(ctx.rt.Manifold.sphere(ctx.num("radius"), ctx.num("segments"))),
 * });
 * ```
 */
export function defineOp<const M extends Readonly<Record<string, Member>>>(
  spec: OpSpec<keyof M & string> & { members: M },
): OpSpec<keyof M & string> & { members: M } {
  return Object.freeze(spec);
}

/** Throws the validator's error (`invalid_dag`) for a literal rule an op's `check` found broken. */
export function failDag(reason: DagErrorReason, pointer: string, message: string): never {
  throw new DagError("invalid_dag", reason, pointer, message);
}

// ---------------------------------------------------------------------------------------------
// Members, briefly

/** A number or a reference to one. */
export const num = (range?: Range, options: MemberOptions = {}): Member => ({
  kind: "num",
  range,
  ...options,
});
/** A vector of numbers (or references to numbers). */
export const vec = (
  n: 2 | 3,
  range?: Range,
  options: MemberOptions & { axes?: string } = {},
): Member => ({ kind: "vec", n, range, ...options });
/** A boolean or a reference to one. */
export const bool = (options: MemberOptions = {}): Member => ({ kind: "bool", ...options });
/** A string (at most the string limit) or a reference to one. */
export const str = (options: MemberOptions & { color?: boolean } = {}): Member => ({
  kind: "str",
  ...options,
});
/** One of a few literal strings (never a reference). */
export const choice = (choices: readonly string[], options: MemberOptions = {}): Member => ({
  kind: "choice",
  choices,
  ...options,
});
/** A reference to a node of one of the types of `type`. */
export const ref = (type: number, options: MemberOptions = {}): Member => ({
  kind: "ref",
  type,
  ...options,
});
/** 1–max references to nodes of one of the types of `type`. */
export const refs = (type: number, max: number, options: MemberOptions = {}): Member => ({
  kind: "refs",
  type,
  min: 1,
  max,
  ...options,
});
/** Any value: a literal or a reference to any node. */
export const value = (options: MemberOptions = {}): Member => ({ kind: "value", ...options });

/** > 0. */
export const POSITIVE: Range = Object.freeze({ gt: 0 });
/** ≥ 0. */
export const NON_NEGATIVE: Range = Object.freeze({ ge: 0 });
/** An angle in (0, 360]. */
export const DEGREES: Range = Object.freeze({ gt: 0, le: 360 });
/** Segments per full circle, within the segment limits. */
export const SEGMENTS: Range = Object.freeze({ int: true, ge: "minSegments", le: "maxSegments" });
/** A repeat count, within the repeat limit. */
export const REPEAT_COUNT: Range = Object.freeze({ int: true, ge: 1, le: "maxRepeatCount" });

/** `segments` per full circle, defaulting to `fallback`. */
export const segments = (fallback: number): Member =>
  num(SEGMENTS, { default: fallback, doc: "per full circle" });
/** `center`: a boolean, false by default. */
export const center = (doc?: string): Member => bool({ default: false, doc });
