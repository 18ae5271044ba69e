/**
 * Booleans and the hull: `union`, `intersection`, `hull` of solids and `difference` of a base and
 * what it loses. Instances take part as their placed copies; each operation's inputs together are
 * bounded (`checkWork`) before manifold-3d starts on them.
 */
import { defineOp, ref, refs, SOLID, SOLIDISH } from "./op_spec.ts";
import type { OpContext } from "./op_context.ts";

/** Placed copies of every child of a list member (temporaries of the node). */
function copiesOf<K extends string>(ctx: OpContext<K>, member: K) {
  return ctx.list(member).flatMap((c, i) => {
    const at = ctx.at(`${member}/${i}`);
    return ctx.copies(ctx.solidOrInstancesAt(c, at), at);
  });
}

const children = refs(SOLIDISH, 256);

/** The boolean ops. */
export const BOOLEAN_OPS = {
  union: defineOp({
    doc: "The union of solids.",
    section: "solids",
    result: SOLID,
    members: { children },
    evaluate(ctx) {
      // A union takes the instances' copies directly (one boolean, not a merge and then another).
      const solids = copiesOf(ctx, "children");
      ctx.checkWork(solids);
      return ctx.newSolid(ctx.rt.Manifold.union(solids));
    },
  }),
  intersection: defineOp({
    doc: "The intersection of solids (instances are merged first).",
    section: "solids",
    result: SOLID,
    members: { children },
    evaluate(ctx) {
      // An intersection must intersect each child as a whole.
      const solids = ctx.list("children").map((c, i) => ctx.solidAt(c, ctx.at(`children/${i}`)));
      ctx.checkWork(solids);
      return ctx.newSolid(ctx.rt.Manifold.intersection(solids));
    },
  }),
  hull: defineOp({
    doc: "The convex hull of solids.",
    section: "solids",
    result: SOLID,
    members: { children },
    evaluate(ctx) {
      const copies = copiesOf(ctx, "children");
      ctx.checkWork(copies);
      return ctx.newSolid(ctx.rt.Manifold.hull(copies));
    },
  }),
  difference: defineOp({
    doc: "`base` minus every solid of `subtract`.",
    section: "solids",
    result: SOLID,
    members: { base: ref(SOLIDISH), subtract: refs(SOLIDISH, 256) },
    evaluate(ctx) {
      const base = ctx.solidAt(ctx.raw("base"), ctx.at("base"));
      // Subtracting each instance is subtracting their union: no merge needed.
      const cutters = copiesOf(ctx, "subtract");
      ctx.checkWork([base, ...cutters]);
      return ctx.newSolid(ctx.rt.Manifold.difference([base, ...cutters]));
    },
  }),
};
