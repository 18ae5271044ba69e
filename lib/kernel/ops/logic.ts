/**
 * Decisions: `compare` two values into a boolean, `select` one of two values of one type. `select`
 * is lazy — it needs its condition, then only the branch it picks (`needs`), so the other branch
 * may hold a division by zero the condition guards against.
 */
import {
  BOOL,
  bool,
  choice,
  defineOp,
  describeType,
  failDag,
  NUM,
  singleType,
  SOLIDISH,
  STR,
  value,
} from "./op_spec.ts";
import { evalFail, type Value } from "./values.ts";
import { isRef } from "../../dag/dag_types.ts";

const scalar = (v: Value) => typeof v !== "object";

/** The decision ops. */
export const LOGIC_OPS = {
  compare: defineOp({
    doc:
      "`a` `test` `b`; `lt`/`le`/`gt`/`ge` compare numbers, `eq`/`ne` any two values of one type.",
    section: "expressions",
    result: BOOL,
    members: {
      test: choice(["lt", "le", "gt", "ge", "eq", "ne"]),
      a: value(),
      b: value({ doc: "a's type" }),
    },
    checkTypes(node, typeOf, at) {
      const a = typeOf(node.a), b = typeOf(node.b);
      const ordered = !["eq", "ne"].includes(node.test as string);
      const allowed = ordered ? NUM : NUM | BOOL | STR;
      if ((a & ~allowed) !== 0 || !singleType(a)) {
        failDag("type_mismatch", at("a"), `compare ${node.test} needs ${describeType(allowed)}`);
      }
      if (a !== b) failDag("type_mismatch", at("b"), `expected ${describeType(a)} like a`);
    },
    evaluate(ctx) {
      const a = ctx.value("a");
      const b = ctx.value("b");
      const test = ctx.raw("test");
      if (!scalar(a) || !scalar(b) || typeof a !== typeof b) {
        ctx.fail(
          "invalid_dag",
          "type_mismatch",
          ctx.pointer,
          "compare needs two values of one type.",
        );
      }
      if (test === "eq") return a === b;
      if (test === "ne") return a !== b;
      if (typeof a !== "number" || typeof b !== "number") {
        ctx.fail("invalid_dag", "type_mismatch", ctx.pointer, `"${test}" compares numbers.`);
      }
      switch (test) {
        case "lt":
          return a < b;
        case "le":
          return a <= b;
        case "gt":
          return a > b;
        case "ge":
          return a >= b;
        default:
          return ctx.fail("invalid_dag", "type_mismatch", ctx.at("test"), "Unknown test.");
      }
    },
  }),
  select: defineOp({
    doc: "`then` if `cond`, else `else`.",
    section: "expressions",
    result: "select",
    members: {
      cond: bool(),
      then: value({ doc: "numbers, booleans, strings, or geometry of one kind" }),
      else: value({ doc: "then's type; solids and instances mix" }),
    },
    checkTypes(node, typeOf, at) {
      const a = typeOf(node.then), b = typeOf(node.else);
      // One kind: identical types, except that solids and instances mix (both are "solid").
      const agree = (a === b && singleType(a)) || ((a | b) & ~SOLIDISH) === 0;
      if (!agree) {
        failDag(
          "type_mismatch",
          at("else"),
          `else is ${describeType(b)}, then is ${describeType(a)}`,
        );
      }
    },
    needs(node, peek, at) {
      if (isRef(node.cond) && !peek.done(node.cond)) return [node.cond];
      const cond = peek.value(node.cond);
      if (typeof cond !== "boolean") {
        evalFail("invalid_dag", "type_mismatch", at("cond"), "Expected a boolean.");
      }
      return [node.cond, cond ? node.then : node.else];
    },
    evaluate(ctx) {
      const chosen = ctx.bool("cond") ? "then" : "else";
      const value = ctx.value(chosen);
      ctx.hold(ctx.raw(chosen));
      return value;
    },
  }),
};
