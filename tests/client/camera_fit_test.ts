/** The viewer's refit rule and fit distance (lib/client/camera_fit.ts). */
import assert from "node:assert/strict";
import { changedALot, fitDistance, shouldRefit, sphereOfBox } from "@/lib/client/camera_fit.ts";

// The spur gear at its defaults (52 × 52 × 14 mm) and at 80 teeth of module 4 (328 × 328 × 14).
const small = sphereOfBox({ min: [-26, -26, 0], max: [26, 26, 14] });
const large = sphereOfBox({ min: [-164, -164, 0], max: [164, 164, 14] });

Deno.test("camera fit - the sphere around a box passes through its corners", () => {
  const s = sphereOfBox({ min: [0, 0, 0], max: [2, 4, 4] });
  assert.deepEqual(s.center, [1, 2, 2]);
  assert.equal(s.radius, 3);
});

Deno.test("camera fit - a big change refits unless the shopper moved the camera", async (t) => {
  await t.step("the first scene always fits", () => {
    assert.equal(shouldRefit({ fitted: undefined, next: small, userMoved: true }), true);
  });
  await t.step("80 teeth at module 4 after the defaults: refit", () => {
    assert.equal(changedALot(small, large), true);
    assert.equal(shouldRefit({ fitted: small, next: large, userMoved: false }), true);
    assert.equal(shouldRefit({ fitted: large, next: small, userMoved: false }), true);
  });
  await t.step("the shopper's own view is kept; Fit (force) refits anyway", () => {
    assert.equal(shouldRefit({ fitted: small, next: large, userMoved: true }), false);
    assert.equal(shouldRefit({ fitted: small, next: large, userMoved: true, force: true }), true);
  });
  await t.step("a slider step (a few mm) does not move the camera", () => {
    const wider = sphereOfBox({ min: [-27, -27, 0], max: [27, 27, 14] });
    assert.equal(changedALot(small, wider), false);
    assert.equal(shouldRefit({ fitted: small, next: wider, userMoved: false }), false);
  });
  await t.step("a model that moved off its centre by more than half its size refits", () => {
    const moved = sphereOfBox({ min: [14, -26, 0], max: [66, 26, 14] });
    assert.equal(changedALot(small, moved), true);
  });
});

Deno.test("camera fit - the distance grows with the radius and fits a narrow view by its width", () => {
  const wide = fitDistance(small.radius, 35, 16 / 9);
  assert.ok(
    Math.abs(fitDistance(large.radius, 35, 16 / 9) / wide - large.radius / small.radius) < 1e-9,
  );
  // The sphere seen at that distance spans the vertical field of view (with the 8 % margin).
  const half = Math.asin(small.radius / (wide / 1.08));
  assert.ok(Math.abs(2 * half - (35 * Math.PI) / 180) < 1e-9);
  // A phone's tall viewer (0.5) is limited by its horizontal angle: farther than a wide one.
  assert.ok(fitDistance(small.radius, 35, 0.5) > wide * 1.8);
});
