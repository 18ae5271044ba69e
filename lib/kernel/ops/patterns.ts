/**
 * Repeats: one solid placed many times, as *instances* (the child's mesh once, plus one 4×4
 * transform per instance; the viewer draws them with instancing). `linearRepeat` along a step,
 * `gridRepeat` on an XY grid, `polarRepeat` around Z. Nested repeats multiply, within the
 * instance limit.
 */
import { identity, type Mat4, multiply, rotation, translation } from "../transforms.ts";
import {
  defineOp,
  DEGREES,
  failDag,
  INST,
  num,
  ref,
  REPEAT_COUNT,
  SOLIDISH,
  vec,
} from "./op_spec.ts";
import type { OpContext } from "./op_context.ts";
import type { InstancesValue } from "./values.ts";

/** Instances: every placement applied after every transform the child already has. */
function repeat<K extends string>(ctx: OpContext<K | "child">, placements: Mat4[]): InstancesValue {
  const child = ctx.solidOrInstances("child");
  const inner = child.kind === "solid" ? [identity()] : child.transforms;
  ctx.checkInstances(placements.length * inner.length);
  const transforms: Mat4[] = [];
  for (const placement of placements) {
    for (const t of inner) {
      transforms.push(child.kind === "solid" ? placement : multiply(placement, t));
    }
  }
  ctx.hold(ctx.raw("child"));
  return { kind: "instances", m: child.m, transforms };
}

const isNum = (x: unknown): x is number => typeof x === "number";
const child = ref(SOLIDISH);

/** The repeat ops. */
export const PATTERN_OPS = {
  linearRepeat: defineOp({
    doc: "`count` instances of `child`, instance i at i·`step`.",
    section: "repeats",
    result: INST,
    members: { child, count: num(REPEAT_COUNT), step: vec(3) },
    instances: "count",
    evaluate(ctx) {
      const count = ctx.num("count");
      const step = ctx.vec3("step");
      const placements = Array.from(
        { length: count },
        (_, i) => translation([i * step[0], i * step[1], i * step[2]]),
      );
      return repeat(ctx, placements);
    },
  }),
  gridRepeat: defineOp({
    doc: "nx·ny instances of `child`, instance (i, j) at (i·dx, j·dy, 0).",
    section: "repeats",
    result: INST,
    members: {
      child,
      count: vec(2, { int: true, ge: 1, le: "maxGridCount" }, {
        axes: "[nx, ny]",
        doc: "nx·ny within the grid limit",
      }),
      step: vec(2, undefined, { axes: "[dx, dy]" }),
    },
    instances: "count",
    check(node, at, limits) {
      const [nx, ny] = node.count as unknown[];
      if (isNum(nx) && isNum(ny) && nx * ny > limits.maxGridCount) {
        failDag("too_many_instances", at("count"), `grids hold ≤ ${limits.maxGridCount}`);
      }
    },
    evaluate(ctx) {
      const [nx, ny] = ctx.vec2("count");
      const { maxGridCount } = ctx.limits;
      if (nx * ny > maxGridCount) {
        ctx.fail(
          "invalid_dag",
          "out_of_range",
          ctx.at("count"),
          `${nx}×${ny} exceeds ${maxGridCount}.`,
        );
      }
      const [dx, dy] = ctx.vec2("step");
      const placements: Mat4[] = [];
      for (let j = 0; j < ny; j++) {
        for (let i = 0; i < nx; i++) placements.push(translation([i * dx, j * dy, 0]));
      }
      return repeat(ctx, placements);
    },
  }),
  polarRepeat: defineOp({
    doc: "`count` instances of `child` rotated about Z: i·degrees/count over a full turn, " +
      "else i·degrees/(count − 1).",
    section: "repeats",
    result: INST,
    members: {
      child,
      count: num(REPEAT_COUNT),
      degrees: num(DEGREES, { default: 360, what: "The polar span", doc: "the span" }),
    },
    instances: "count",
    evaluate(ctx) {
      const count = ctx.num("count");
      const span = ctx.num("degrees");
      // A full turn spaces count instances evenly; a partial span puts the last at its end.
      const step = Math.abs(span) === 360 ? span / count : count > 1 ? span / (count - 1) : 0;
      const placements = Array.from({ length: count }, (_, i) => rotation([0, 0, i * step]));
      return repeat(ctx, placements);
    },
  }),
};
