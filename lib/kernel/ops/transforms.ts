/**
 * Rigid and affine placements of solids or instances: `translate`, `rotate`, `scale`, `mirror`.
 * The result has the child's type: a solid is transformed by manifold-3d (which keeps faces
 * outward), instances by composing every placement.
 */
import {
  linearDeterminant,
  type Mat4,
  mirroring,
  multiply,
  rotation,
  scaling,
  translation,
} from "../transforms.ts";
import type { Manifold } from "manifold-3d";
import { defineOp, failDag, ref, SOLIDISH, vec } from "./op_spec.ts";
import type { OpContext } from "./op_context.ts";
import type { Value } from "./values.ts";

/** The F of `A·T·F`: a reflection that keeps instance transforms orientation-preserving. */
const FLIP_Z: Mat4 = scaling([1, 1, -1]);

/**
 * A transform `a` of the `child` member: of a solid, manifold-3d's own op; of instances, every
 * instance transform becomes `a·T`. When `a` mirrors, instance transforms would mirror too and a
 * viewer drawing them with instancing would show inside-out faces, so the base solid is mirrored
 * once (F, across z = 0) and the transforms become `a·T·F`, which do not mirror.
 */
function transform<K extends string>(
  ctx: OpContext<K | "child">,
  a: Mat4,
  apply: (m: Manifold) => Manifold,
): Value {
  const child = ctx.solidOrInstances("child");
  if (child.kind === "solid") return ctx.newSolid(apply(child.m));
  if (linearDeterminant(a) > 0) {
    ctx.hold(ctx.raw("child"));
    return {
      kind: "instances",
      m: child.m,
      transforms: child.transforms.map((t) => multiply(a, t)),
    };
  }
  const flipped = ctx.own(child.m.mirror([0, 0, 1]));
  return {
    kind: "instances",
    m: ctx.checkSolid(flipped, ctx.pointer),
    transforms: child.transforms.map((t) => multiply(multiply(a, t), FLIP_Z)),
  };
}

const child = ref(SOLIDISH);

/** The transform ops. */
export const TRANSFORM_OPS = {
  translate: defineOp({
    doc: "A solid or instances moved by `offset`.",
    section: "solids",
    result: "child",
    members: { child, offset: vec(3) },
    evaluate(ctx) {
      const offset = ctx.vec3("offset");
      return transform(ctx, translation(offset), (m) => m.translate(offset));
    },
  }),
  rotate: defineOp({
    doc: "A solid or instances rotated by `degrees` about X, then Y, then Z.",
    section: "solids",
    result: "child",
    members: { child, degrees: vec(3) },
    evaluate(ctx) {
      const degrees = ctx.vec3("degrees");
      return transform(ctx, rotation(degrees), (m) => m.rotate(degrees));
    },
  }),
  scale: defineOp({
    doc: "A solid or instances scaled by `factor`.",
    section: "solids",
    result: "child",
    members: { child, factor: vec(3, { nonZero: true }, { what: "A scale factor" }) },
    evaluate(ctx) {
      const factor = ctx.vec3("factor");
      return transform(ctx, scaling(factor), (m) => m.scale(factor));
    },
  }),
  mirror: defineOp({
    doc: "A solid or instances mirrored across the plane through the origin with this `normal`.",
    section: "solids",
    result: "child",
    members: { child, normal: vec(3, undefined, { doc: "not all zero" }) },
    check(node, at) {
      if ((node.normal as unknown[]).every((x) => x === 0)) {
        failDag("out_of_range", at("normal"), "the mirror normal is zero");
      }
    },
    evaluate(ctx) {
      const normal = ctx.vec3("normal");
      if (normal.every((n) => n === 0)) {
        ctx.fail("render_failed", "out_of_range", ctx.at("normal"), "The mirror normal is zero.");
      }
      return transform(ctx, mirroring(normal), (m) => m.mirror(normal));
    },
  }),
};
