/**
 * Arithmetic on numbers: n-ary `add`/`mul`/`min`/`max`, binary `sub`/`div`, `clamp`, and `round`
 * to a multiple of a step. Every result is a computed number, so it is held to ±maxAbsNumber (a
 * product of two large parameters must not reach manifold-3d as 1e12).
 */
import { choice, defineOp, failDag, type Member, NUM, num, POSITIVE } from "./op_spec.ts";
import type { OpContext } from "./op_context.ts";

const ARGS: Member = { kind: "nums", min: 1, max: 64 };

/** An n-ary op over 1–64 numbers. */
function nary(doc: string, fold: (args: number[]) => number) {
  return defineOp({
    doc,
    section: "expressions",
    result: NUM,
    members: { args: ARGS },
    evaluate: (ctx) => ctx.checkNumber(fold(ctx.nums("args")), ctx.pointer),
  });
}

const isNum = (x: unknown): x is number => typeof x === "number";

/** `round` to a multiple of `step`; a quotient within 1e-9 of an integer counts as that integer,
 * so floor(0.3 / 0.1) is 3, not 2. `nearest` rounds halves away from zero. */
function round(ctx: OpContext<"value" | "step" | "mode">): number {
  const value = ctx.num("value");
  const step = ctx.num("step");
  let q = value / step;
  const nearest = Math.sign(q) * Math.round(Math.abs(q));
  if (Math.abs(q - nearest) <= 1e-9 * Math.max(1, Math.abs(q))) q = nearest;
  const mode = ctx.choice("mode");
  const k = mode === "floor" ? Math.floor(q) : mode === "ceil" ? Math.ceil(q) : nearest;
  return ctx.checkNumber(k * step + 0, ctx.pointer);
}

/** The arithmetic ops. */
export const ARITHMETIC_OPS = {
  add: nary("The sum of `args`.", (args) => args.reduce((s, x) => s + x, 0)),
  mul: nary("The product of `args`.", (args) => args.reduce((s, x) => s * x, 1)),
  min: nary("The smallest of `args`.", (args) => Math.min(...args)),
  max: nary("The largest of `args`.", (args) => Math.max(...args)),
  sub: defineOp({
    doc: "a − b.",
    section: "expressions",
    result: NUM,
    members: { a: num(), b: num() },
    evaluate: (ctx) => ctx.checkNumber(ctx.num("a") - ctx.num("b"), ctx.pointer),
  }),
  div: defineOp({
    doc: "a ÷ b.",
    section: "expressions",
    result: NUM,
    members: { a: num(), b: num({ nonZero: true, reason: "division_by_zero" }) },
    evaluate: (ctx) => ctx.checkNumber(ctx.num("a") / ctx.num("b"), ctx.pointer),
  }),
  clamp: defineOp({
    doc: "`value` limited to [`min`, `max`].",
    section: "expressions",
    result: NUM,
    members: { value: num(), min: num(), max: num(undefined, { doc: "≥ `min`" }) },
    check(node, at) {
      if (isNum(node.min) && isNum(node.max) && node.min > node.max) {
        failDag("out_of_range", at("max"), "clamp max is below min");
      }
    },
    evaluate(ctx) {
      const value = ctx.num("value");
      const min = ctx.num("min");
      const max = ctx.num("max");
      if (min > max) {
        ctx.fail(
          "render_failed",
          "out_of_range",
          ctx.at("min"),
          `clamp min ${min} is above max ${max}.`,
        );
      }
      return Math.min(Math.max(value, min), max);
    },
  }),
  round: defineOp({
    doc: "`value` rounded to a multiple of `step`.",
    section: "expressions",
    result: NUM,
    members: {
      value: num(),
      step: num(POSITIVE, { default: 1 }),
      mode: choice(["nearest", "floor", "ceil"], { default: "nearest" }),
    },
    evaluate: round,
  }),
};
