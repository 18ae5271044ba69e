/**
 * 2D profiles in the XY plane (manifold-3d CrossSections): made from nothing (`rectangle`,
 * `roundedRectangle`, `circle`, `polygon`) or from another profile (`offset`, `fillet2d`).
 * Circles and round corners are polygons of `segments` edges per full circle, as everywhere in
 * the format.
 */
import { cosDegrees, sinDegrees } from "../transforms.ts";
import {
  center,
  choice,
  defineOp,
  failDag,
  NON_NEGATIVE,
  num,
  POSITIVE,
  PROFILE,
  ref,
  segments,
  vec,
} from "./op_spec.ts";
import type { OpContext } from "./op_context.ts";
import type { CrossSection } from "manifold-3d";

const isNum = (x: unknown): x is number => typeof x === "number";
const CORNER_RADIUS = NON_NEGATIVE;
/** The format's join names, as manifold-3d (Clipper2) spells them. */
const JOINS = { round: "Round", miter: "Miter", square: "Square" } as const;

/** Twice the signed area of a closed polygon (shoelace formula): > 0 when counter-clockwise. */
function twiceArea(points: readonly (readonly number[])[]): number {
  let sum = 0;
  for (let k = 0; k < points.length; k++) {
    const [x0, y0] = points[k];
    const [x1, y1] = points[(k + 1) % points.length];
    sum += x0 * y1 - x1 * y0;
  }
  return sum;
}

/**
 * `cs` offset by `delta` (manifold-3d's Clipper2 offset), simplified at 1e-6 as manifold
 * recommends after an offset: round joins that meet short edges (a faceted circle's) leave
 * slivers otherwise. The raw offset is a temporary of the node.
 */
function offsetOf<K extends string>(
  ctx: OpContext<K>,
  cs: CrossSection,
  delta: number,
  join: "Round" | "Miter" | "Square",
  miterLimit: number,
  segments: number,
): CrossSection {
  return ctx.temp(cs.offset(delta, join, miterLimit, segments)).simplify(1e-6);
}

/** This node's offset profile, unless nothing is left of it (nothing could be made of it). */
function nonEmpty<K extends string>(ctx: OpContext<K>, cs: CrossSection) {
  const profile = ctx.newProfile(cs);
  if (cs.isEmpty()) {
    ctx.fail("render_failed", "empty_geometry", ctx.pointer, "Nothing is left of the profile.");
  }
  return profile;
}

/** Four quarter arcs of ⌈segments/4⌉ edges each, so the outline touches the exact size. */
function roundedRectangle(ctx: OpContext<"size" | "radius" | "segments" | "center">) {
  const [x, y] = ctx.vec2("size");
  const half = Math.min(x, y) / 2;
  // The member's range and the bound of the side, checked as one (after the ulp snap below).
  let radius = ctx.numAt(ctx.raw("radius"), ctx.at("radius"));
  // A radius computed as half the side may land an ulp above it: that is still a full round.
  if (radius > half && radius <= half * (1 + 1e-9)) radius = half;
  ctx.checkRange(radius, { ...CORNER_RADIUS, le: half }, ctx.at("radius"), "The corner radius");
  const segments = ctx.num("segments");
  const center = ctx.bool("center");
  const [ox, oy] = center ? [-x / 2, -y / 2] : [0, 0];
  if (radius === 0) return ctx.newProfile(ctx.rt.CrossSection.square([x, y], center));
  const quarter = Math.max(1, Math.ceil(segments / 4));
  const corners: [number, number, number][] = [
    [x - radius, y - radius, 0],
    [radius, y - radius, 90],
    [radius, radius, 180],
    [x - radius, radius, 270],
  ];
  const points: [number, number][] = [];
  for (const [cx, cy, start] of corners) {
    for (let k = 0; k <= quarter; k++) {
      const a = start + 90 * k / quarter;
      const point: [number, number] = [
        ox + cx + radius * cosDegrees(a),
        oy + cy + radius * sinDegrees(a),
      ];
      const last = points[points.length - 1];
      if (!last || last[0] !== point[0] || last[1] !== point[1]) points.push(point);
    }
  }
  const [first, last] = [points[0], points[points.length - 1]];
  if (first[0] === last[0] && first[1] === last[1]) points.pop();
  return ctx.newProfile(new ctx.rt.CrossSection([points], "Positive"));
}

/** The profile ops. */
export const PROFILE_OPS = {
  rectangle: defineOp({
    doc: "A rectangle; corner at the origin unless `center`.",
    section: "profiles",
    result: PROFILE,
    members: {
      size: vec(2, POSITIVE, { what: "A rectangle side" }),
      center: center(),
    },
    evaluate(ctx) {
      const size = ctx.vec2("size");
      return ctx.newProfile(ctx.rt.CrossSection.square(size, ctx.bool("center")));
    },
  }),
  roundedRectangle: defineOp({
    doc: "A rectangle with rounded corners.",
    section: "profiles",
    result: PROFILE,
    members: {
      size: vec(2, POSITIVE, { what: "A rectangle side" }),
      radius: num(CORNER_RADIUS, { doc: "≤ min(x, y)/2" }),
      segments: segments(32),
      center: center(),
    },
    check(node, at) {
      const [x, y] = node.size as unknown[];
      if (isNum(node.radius) && isNum(x) && isNum(y) && node.radius > Math.min(x, y) / 2) {
        failDag("out_of_range", at("radius"), "radius exceeds half the smaller side");
      }
    },
    evaluate: roundedRectangle,
  }),
  circle: defineOp({
    doc: "A circle about the origin.",
    section: "profiles",
    result: PROFILE,
    members: { radius: num(POSITIVE, { what: "The radius" }), segments: segments(48) },
    evaluate(ctx) {
      const radius = ctx.num("radius");
      return ctx.newProfile(ctx.rt.CrossSection.circle(radius, ctx.num("segments")));
    },
  }),
  polygon: defineOp({
    doc: "A simple polygon.",
    section: "profiles",
    result: PROFILE,
    members: { points: { kind: "points", doc: "counter-clockwise" } },
    check(node, at) {
      const points = node.points as unknown[][];
      if (
        points.every(([x, y]) => isNum(x) && isNum(y)) && !(twiceArea(points as number[][]) > 0)
      ) {
        failDag("not_counter_clockwise", at("points"), "polygon points must wind CCW");
      }
    },
    evaluate(ctx) {
      const points = ctx.points("points");
      if (!(twiceArea(points) > 0)) {
        ctx.fail(
          "render_failed",
          "not_counter_clockwise",
          ctx.at("points"),
          "The polygon is clockwise or flat.",
        );
      }
      return ctx.newProfile(new ctx.rt.CrossSection([points], "Positive"));
    },
  }),
  offset: defineOp({
    doc: "A profile grown (`delta` > 0) or shrunk (`delta` < 0), outline and holes alike.",
    section: "profiles",
    result: PROFILE,
    members: {
      profile: ref(PROFILE),
      delta: num(),
      join: choice(Object.keys(JOINS), { default: "round", doc: "how corners are joined" }),
      miterLimit: num({ ge: 2 }, {
        default: 2,
        doc: "`miter` only: how far a corner may reach, in deltas, before it is squared",
      }),
      segments: segments(48),
    },
    evaluate(ctx) {
      const profile = ctx.profile("profile");
      const delta = ctx.num("delta");
      const join = JOINS[ctx.choice("join") as keyof typeof JOINS];
      const miterLimit = ctx.num("miterLimit");
      return nonEmpty(ctx, offsetOf(ctx, profile, delta, join, miterLimit, ctx.num("segments")));
    },
  }),
  fillet2d: defineOp({
    doc: "A profile with every convex corner rounded to `radius`: offset by −radius, then by " +
      "+radius, both with round joins (an opening; parts narrower than 2·radius vanish).",
    section: "profiles",
    result: PROFILE,
    members: {
      profile: ref(PROFILE),
      radius: num(POSITIVE, { what: "The fillet radius" }),
      segments: segments(48),
    },
    evaluate(ctx) {
      const profile = ctx.profile("profile");
      const radius = ctx.num("radius");
      const segments = ctx.num("segments");
      // Shrinking keeps convex corners sharp and rounds concave ones; growing back by as much
      // rounds the convex ones and makes the concave ones sharp again.
      const inset = ctx.temp(offsetOf(ctx, profile, -radius, "Round", 2, segments));
      return nonEmpty(ctx, offsetOf(ctx, inset, radius, "Round", 2, segments));
    },
  }),
};
