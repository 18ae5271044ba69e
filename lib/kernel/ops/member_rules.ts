/**
 * The rules of one member, as data: its kind (a number, a vector, a reference…), its range, its
 * default — and `rangeViolation`, the one check of a number against its range that the validator
 * applies to literals and the evaluator to computed values. A leaf module: the op specs
 * (`op_spec.ts`) and the evaluation context (`member_reader.ts`) both build on it.
 */
import type { DagLimits } from "../../dag/dag_limits.ts";

/** The limits a range bound may name instead of a number (resolved per evaluation). */
export type LimitName = "minSegments" | "maxSegments" | "maxRepeatCount" | "maxGridCount";

/** A range bound: a number, or a limit of `DagLimits`. */
export type Bound = number | LimitName;

/** The rules a number must meet (a vector's: each element's). */
export interface Range {
  /** Exclusive lower bound. */
  gt?: number;
  /** Inclusive lower bound. */
  ge?: Bound;
  /** Inclusive upper bound. */
  le?: Bound;
  /** Integers only. */
  int?: boolean;
  /** 0 is refused. */
  nonZero?: boolean;
  /** The reason a broken rule is reported with, when not `out_of_range`; such a rule is checked
   * with the op's rules spanning members, after every required member is known to be there. */
  reason?: "division_by_zero";
}

/** Which rule a number broke (see `rangeViolation`). */
export type Violation = "int" | "lower" | "upper" | "zero";

/** A bound as a number under these limits. */
export function resolveBound(bound: Bound, limits: Pick<DagLimits, LimitName>): number {
  return typeof bound === "number" ? bound : limits[bound];
}

/**
 * The one check of a number against its range, used by the validator on literals and by the
 * evaluator on computed values: the first rule broken, or undefined.
 *
 * @example
 * ```ts
 * rangeViolation(2, { int: true, ge: "minSegments" }, DEFAULT_DAG_LIMITS); // "lower"
 * ```
 */
export function rangeViolation(
  value: number,
  range: Range,
  limits: Pick<DagLimits, LimitName>,
): Violation | undefined {
  if (range.int && !Number.isInteger(value)) return "int";
  const ge = range.ge === undefined ? undefined : resolveBound(range.ge, limits);
  const le = range.le === undefined ? undefined : resolveBound(range.le, limits);
  if ((range.gt !== undefined && !(value > range.gt)) || (ge !== undefined && value < ge)) {
    return "lower";
  }
  if (le !== undefined && value > le) return "upper";
  if (range.nonZero && value === 0) return "zero";
  return undefined;
}

/** A range as text: "> 0, ≤ 360", "≥ 3, ≤ 256", "non-zero" (limits resolved). */
export function rangeText(range: Range, limits: Pick<DagLimits, LimitName>): string {
  return [
    range.gt !== undefined ? `> ${range.gt}` : "",
    range.ge !== undefined ? `≥ ${resolveBound(range.ge, limits)}` : "",
    range.le !== undefined ? `≤ ${resolveBound(range.le, limits)}` : "",
    range.nonZero ? "non-zero" : "",
  ].filter(Boolean).join(", ");
}

/** What every member may say besides its kind (the options of every member constructor). */
export interface MemberOptions {
  /** Absent is allowed (implied by `default`). */
  optional?: boolean;
  /** The value used when the member is absent. */
  default?: number | boolean | string | readonly number[];
  /** Docs: what the member means, beyond its kind and range ("degrees", "0 makes a cone"). */
  doc?: string;
  /** The subject of the evaluator's range message ("The radius is -1; …"); default its name. */
  what?: string;
}

/** One member of an op: its kind and rules. */
export type Member =
  & MemberOptions
  & (
    | { kind: "num"; range?: Range }
    | { kind: "bool" }
    | { kind: "str"; color?: boolean }
    | { kind: "choice"; choices: readonly string[] }
    | { kind: "vec"; n: 2 | 3; range?: Range; axes?: string }
    | { kind: "nums"; min: number; max: number }
    | { kind: "points" }
    | { kind: "ref"; type: number }
    | { kind: "refs"; type: number; min: number; max: number }
    | { kind: "value" } // a number/boolean/string literal or a reference to any node
    | { kind: "literal" } // a number/boolean/string literal only (ParameterInput)
    | { kind: "name" } // a parameter name
  );

/** Whether a member must be present. */
export function isRequired(member: Member): boolean {
  return !member.optional && member.default === undefined;
}
