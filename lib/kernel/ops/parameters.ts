/**
 * The parameter slot, `ParameterInput`: the value substitution put in `value`, else the
 * template's `fallback`. Its type is its fallback's JSON type; the literal rules it shares with
 * template checks (`assertLiteral`, `assertInputValue`) live here, next to the op.
 */
import type { DagLimits } from "../../dag/dag_limits.ts";
import { defineOp, failDag, literalType } from "./op_spec.ts";

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
      failDag("out_of_range", pointer, `numbers are finite with |x| ≤ ${limits.maxAbsNumber}`);
    }
  } else if (typeof value === "string") {
    if (value.length > limits.maxStringLength) {
      failDag("string_too_long", pointer, `strings are at most ${limits.maxStringLength} long`);
    }
  } else if (typeof value !== "boolean") {
    failDag("type_mismatch", pointer, "expected a number, boolean or string literal");
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
    failDag("type_mismatch", pointer, "value must have the fallback's type");
  }
}

/** The parameter slot. */
export const PARAMETER_OPS = {
  ParameterInput: defineOp({
    doc: "A parameter slot: the value of parameter `parameter`, else `fallback`.",
    section: "expressions",
    result: "param",
    members: {
      parameter: { kind: "name", doc: "a property of `parameters.schema.json`" },
      fallback: { kind: "literal", doc: "of the parameter's type" },
      value: { kind: "literal", optional: true, doc: "set by substitution; the fallback's type" },
    },
    check(node, at, limits) {
      if (Object.hasOwn(node, "value")) {
        assertInputValue(node.value, node.fallback, at("value"), limits);
      }
    },
    evaluate(ctx) {
      const value = ctx.has("value") ? ctx.raw("value") : ctx.raw("fallback");
      if (typeof value === "number") return ctx.checkNumber(value, ctx.at("value"));
      if (typeof value === "boolean" || typeof value === "string") return value;
      return ctx.fail("invalid_dag", "type_mismatch", ctx.at("value"), "Not a parameter value.");
    },
  }),
};
