/**
 * Solids from profiles: `extrude` along +Z (with twist and a scaled top) and `revolve` about Z (the
 * profile's x is the radius, its y becomes z).
 */
import {
  center,
  defineOp,
  DEGREES,
  NON_NEGATIVE,
  num,
  POSITIVE,
  PROFILE,
  ref,
  segments,
  SOLID,
  vec,
} from "./op_spec.ts";

/** The extrusion ops. */
export const EXTRUSION_OPS = {
  extrude: defineOp({
    doc: "A profile extruded along +Z.",
    section: "solids",
    result: SOLID,
    members: {
      profile: ref(PROFILE),
      height: num(POSITIVE, { what: "The height" }),
      twist: num(undefined, { default: 0, doc: "degrees" }),
      scaleTop: vec(2, NON_NEGATIVE, { default: [1, 1], axes: "[sx, sy]" }),
      divisions: num({ int: true, ge: 0, le: 256 }, { default: 0 }),
      center: center(),
    },
    evaluate(ctx) {
      const profile = ctx.profile("profile");
      const height = ctx.num("height");
      const twist = ctx.num("twist");
      const scaleTop = ctx.vec2("scaleTop");
      const divisions = ctx.num("divisions");
      const center = ctx.bool("center");
      return ctx.newSolid(profile.extrude(height, divisions, twist, scaleTop, center));
    },
  }),
  revolve: defineOp({
    doc: "A profile (x = radius ≥ 0, y = height) revolved about Z, starting at +X.",
    section: "solids",
    result: SOLID,
    members: {
      profile: ref(PROFILE),
      segments: segments(48),
      degrees: num(DEGREES, { default: 360, what: "The revolve angle" }),
    },
    evaluate(ctx) {
      const profile = ctx.profile("profile");
      const segments = ctx.num("segments");
      const degrees = ctx.num("degrees");
      // `segments` is per full circle, as everywhere in the format; manifold-3d takes the
      // divisions of the swept span (and ignores fewer than 3).
      const divisions = Math.max(3, Math.ceil(segments * degrees / 360 - 1e-9));
      return ctx.newSolid(profile.revolve(divisions, degrees));
    },
  }),
};
