/**
 * The output: a `part` names and colors a solid (or instances), an `assembly` lists parts with
 * unique names. Part names that come from references are only known here, so uniqueness is
 * checked again on the computed names.
 */
import { ASM, defineOp, PART, ref, refs, SOLIDISH, str } from "./op_spec.ts";
import type { PartValue } from "./values.ts";
import { identity } from "../transforms.ts";
import { isRef } from "../../dag/dag_types.ts";

/** The output ops. */
export const ASSEMBLY_OPS = {
  part: defineOp({
    doc: "A named, colored part made from a solid or instances.",
    section: "output",
    result: PART,
    members: { child: ref(SOLIDISH), name: str(), color: str({ color: true }) },
    evaluate(ctx): PartValue {
      const child = ctx.solidOrInstances("child");
      const name = ctx.str("name");
      const color = ctx.str("color");
      if (child.m.isEmpty()) {
        ctx.fail("render_failed", "empty_geometry", ctx.pointer, `Part "${name}" has no geometry.`);
      }
      ctx.hold(ctx.raw("child"));
      const transforms = child.kind === "solid" ? [identity()] : child.transforms;
      return { kind: "part", name, color, m: child.m, transforms, pointer: ctx.pointer };
    },
  }),
  assembly: defineOp({
    doc: "The output: parts with unique names.",
    section: "output",
    result: ASM,
    members: { parts: refs(PART, 64) },
    evaluate(ctx) {
      const parts = ctx.list("parts").map((arg, i) => {
        const value = isRef(arg) ? ctx.arg(arg, ctx.at(`parts/${i}`)) : undefined;
        if (typeof value !== "object" || value.kind !== "part") {
          return ctx.fail("invalid_dag", "type_mismatch", ctx.at(`parts/${i}`), "Expected a part.");
        }
        ctx.hold(arg);
        return value;
      });
      const names = new Set<string>();
      parts.forEach((part, i) => {
        if (names.has(part.name)) {
          ctx.fail(
            "invalid_dag",
            "duplicate_part_name",
            ctx.at(`parts/${i}`),
            `Two parts are "${part.name}".`,
          );
        }
        names.add(part.name);
      });
      return { kind: "assembly", parts };
    },
  }),
};
