/**
 * 3D primitives: `box`, `cylinder` (a cone when `radiusTop` is 0) and `sphere`, as manifold-3d
 * makes them. Round ones are polygonized with `segments` edges per full circle.
 */
import { center, defineOp, NON_NEGATIVE, num, POSITIVE, segments, SOLID, vec } from "./op_spec.ts";

/** The primitive solids. */
export const SOLID_OPS = {
  box: defineOp({
    doc: "A box; corner at the origin unless `center`.",
    section: "solids",
    result: SOLID,
    members: { size: vec(3, POSITIVE, { what: "A box side" }), center: center() },
    evaluate(ctx) {
      const size = ctx.vec3("size");
      return ctx.newSolid(ctx.rt.Manifold.cube(size, ctx.bool("center")));
    },
  }),
  cylinder: defineOp({
    doc: "A cylinder or cone along +Z; base on z = 0 unless `center`.",
    section: "solids",
    result: SOLID,
    members: {
      height: num(POSITIVE, { what: "The height" }),
      radius: num(POSITIVE, { what: "The radius" }),
      radiusTop: num(NON_NEGATIVE, { optional: true, doc: "default `radius`; 0 makes a cone" }),
      segments: segments(48),
      center: center(),
    },
    evaluate(ctx) {
      const height = ctx.num("height");
      const radius = ctx.num("radius");
      const top = ctx.has("radiusTop") ? ctx.num("radiusTop") : radius;
      const segments = ctx.num("segments");
      const center = ctx.bool("center");
      return ctx.newSolid(ctx.rt.Manifold.cylinder(height, radius, top, segments, center));
    },
  }),
  sphere: defineOp({
    doc: "A sphere about the origin.",
    section: "solids",
    result: SOLID,
    members: { radius: num(POSITIVE, { what: "The radius" }), segments: segments(48) },
    evaluate(ctx) {
      const radius = ctx.num("radius");
      return ctx.newSolid(ctx.rt.Manifold.sphere(radius, ctx.num("segments")));
    },
  }),
};
