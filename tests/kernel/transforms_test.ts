/**
 * The instance matrices must agree with manifold-3d's own transforms: a solid transformed by a
 * matrix (`Manifold.transform`) and by manifold's op (`rotate`, `scale`, `mirror`, `translate`)
 * end up with the same bounding box, for asymmetric solids and awkward angles.
 */
import assert from "node:assert/strict";
import type { Manifold } from "manifold-3d";
import { createManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import {
  applyToPoint,
  cosDegrees,
  identity,
  isIdentity,
  linearDeterminant,
  type Mat4,
  mirroring,
  multiply,
  rotation,
  scaling,
  sinDegrees,
  translation,
  type Vec3,
} from "@/lib/kernel/transforms.ts";

const runtime = await createManifoldRuntime({ trackObjects: true });

/** An asymmetric solid off the origin: any wrong axis, sign or order shows in its box. */
function probe(): Manifold {
  const cube = runtime.Manifold.cube([1, 2, 3]);
  const moved = cube.translate([1, 2, 3]);
  cube.delete();
  return moved;
}

function assertSameBox(viaMatrix: Manifold, viaManifold: Manifold, what: string): void {
  const a = viaMatrix.boundingBox();
  const b = viaManifold.boundingBox();
  for (let k = 0; k < 3; k++) {
    assert.ok(Math.abs(a.min[k] - b.min[k]) < 1e-9, `${what}: min[${k}] ${a.min[k]} ≠ ${b.min[k]}`);
    assert.ok(Math.abs(a.max[k] - b.max[k]) < 1e-9, `${what}: max[${k}] ${a.max[k]} ≠ ${b.max[k]}`);
  }
}

/** Compares `matrix` with manifold's `op` on the probe, deleting everything it made. */
function compare(matrix: Mat4, op: (m: Manifold) => Manifold, what: string): void {
  const solid = probe();
  const a = solid.transform(matrix);
  const b = op(solid);
  try {
    assertSameBox(a, b, what);
    assert.ok(Math.abs(a.volume() - b.volume()) < 1e-9, `${what}: volume`);
  } finally {
    for (const m of [solid, a, b]) m.delete();
  }
}

Deno.test("kernel - transforms: rotation matches manifold's rotate (X, then Y, then Z)", () => {
  const angles: Vec3[] = [
    [90, 0, 0],
    [0, 90, 0],
    [0, 0, 90],
    [30, 45, 60],
    [-77, 12.5, 200],
    [180, -90, 270],
    [0, 0, 720.25],
  ];
  for (const degrees of angles) {
    compare(rotation(degrees), (m) => m.rotate(degrees), `rotate ${degrees}`);
  }
  assert.equal(runtime.liveObjects!(), 0);
});

Deno.test("kernel - transforms: translation, scaling and mirroring match manifold", () => {
  compare(translation([5, -6, 7.5]), (m) => m.translate([5, -6, 7.5]), "translate");
  compare(scaling([2, -3, 0.5]), (m) => m.scale([2, -3, 0.5]), "scale");
  for (const normal of [[1, 0, 0], [0, 2, 0], [1, 1, 0], [1, -2, 3]] as Vec3[]) {
    compare(mirroring(normal), (m) => m.mirror(normal), `mirror ${normal}`);
  }
  assert.equal(runtime.liveObjects!(), 0);
});

Deno.test("kernel - transforms: products apply right to left, like chained manifold ops", () => {
  const m = multiply(translation([10, 0, 0]), rotation([0, 0, 90]));
  compare(m, (s) => {
    const r = s.rotate([0, 0, 90]);
    const t = r.translate([10, 0, 0]);
    r.delete();
    return t;
  }, "rotate then translate");
  assert.deepEqual(applyToPoint(m, [1, 0, 0]), [10, 1, 0]);
  assert.equal(runtime.liveObjects!(), 0);
});

Deno.test("kernel - transforms: multiples of 90° are exact", () => {
  assert.deepEqual(applyToPoint(rotation([0, 0, 90]), [1, 0, 0]), [0, 1, 0]);
  assert.deepEqual(applyToPoint(rotation([90, 0, 0]), [0, 1, 0]), [0, 0, 1]);
  assert.deepEqual(applyToPoint(rotation([0, 90, 0]), [0, 0, 1]), [1, 0, 0]);
  for (const d of [0, 90, 180, 270, 360, -90, 450]) {
    assert.ok([0, 1, -1].includes(sinDegrees(d)) && [0, 1, -1].includes(cosDegrees(d)), `${d}`);
  }
  assert.ok(Math.abs(sinDegrees(30) - 0.5) < 1e-15);
});

Deno.test("kernel - transforms: determinant, identity and point helpers", () => {
  assert.equal(linearDeterminant(identity()), 1);
  assert.equal(linearDeterminant(scaling([2, 3, 4])), 24);
  assert.ok(Math.abs(linearDeterminant(mirroring([1, 2, 3])) + 1) < 1e-12);
  assert.ok(Math.abs(linearDeterminant(rotation([10, 20, 30])) - 1) < 1e-12);
  assert.ok(isIdentity(identity()));
  assert.ok(!isIdentity(translation([0, 0, 1])));
  assert.deepEqual(applyToPoint(translation([1, 2, 3]), [1, 1, 1]), [2, 3, 4]);
  assert.deepEqual(applyToPoint(mirroring([0, 0, 5]), [1, 2, 3]), [1, 2, -3]);
  assert.throws(() => mirroring([0, 0, 0]), RangeError);
  const m = multiply(scaling([2, 2, 2]), translation([1, 0, 0]));
  assert.deepEqual(applyToPoint(m, [0, 0, 0]), [2, 0, 0]);
});
