/**
 * When and how far the viewer's camera refits a scene, as plain numbers (no three.js, so the
 * rule is tested without a browser and a React viewer can share it).
 *
 * A configurator re-renders on every slider move. Refitting each time would make the model jump
 * while a shopper drags; never refitting leaves an 80-tooth module-4 gear (328 mm) filling the
 * view with one face after the camera was fitted to a 52 mm one. So the camera refits when the
 * model's bounding sphere changed *a lot* — its radius grew or shrank by more than `RESIZE_RATIO`,
 * or its centre moved by more than `SHIFT_RATIO` of the radius — and only while the shopper has not
 * moved the camera since the last fit (a chosen view is theirs to keep; the Fit button refits).
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { BoundingBox } from "../dag/scene.ts";

/** A bounding sphere: centre and radius. */
export interface BoundingSphere {
  center: [number, number, number];
  radius: number;
}

/** Radius ratio (either way) past which a new scene counts as a big change. */
export const RESIZE_RATIO = 1.5;

/** Centre shift, as a fraction of the larger radius, past which a new scene is a big change. */
export const SHIFT_RATIO = 0.5;

/**
 * The sphere around a box (through its corners), as three.js `Box3.getBoundingSphere` computes it.
 *
 * @example
 * ```ts
 * sphereOfBox({ min: [0, 0, 0], max: [2, 0, 0] }); // { center: [1, 0, 0], radius: 1 }
 * ```
 */
export function sphereOfBox(box: BoundingBox): BoundingSphere {
  const center = box.min.map((lo, k) => (lo + box.max[k]) / 2) as [number, number, number];
  const half = box.min.map((lo, k) => (box.max[k] - lo) / 2);
  return { center, radius: Math.hypot(half[0], half[1], half[2]) };
}

/**
 * Whether `next` differs enough from the sphere the camera was fitted to that a fit is due.
 *
 * @example
 * ```ts
 * changedALot({ center: [0, 0, 0], radius: 30 }, { center: [0, 0, 0], radius: 165 }); // true
 * ```
 */
export function changedALot(fitted: BoundingSphere, next: BoundingSphere): boolean {
  const a = Math.max(fitted.radius, 1e-6);
  const b = Math.max(next.radius, 1e-6);
  if (Math.max(a / b, b / a) > RESIZE_RATIO) return true;
  const shift = Math.hypot(
    next.center[0] - fitted.center[0],
    next.center[1] - fitted.center[1],
    next.center[2] - fitted.center[2],
  );
  return shift > SHIFT_RATIO * Math.max(a, b);
}

/**
 * Whether showing a scene bounded by `next` should refit the camera: the first scene always, a
 * scene asked to (`force`), or a big change while the shopper has not moved the camera since the
 * last fit.
 *
 * @example
 * ```ts
 * shouldRefit({ fitted: undefined, next, userMoved: false }); // true: the first scene
 * ```
 */
export function shouldRefit(state: {
  fitted: BoundingSphere | undefined;
  next: BoundingSphere;
  userMoved: boolean;
  force?: boolean;
}): boolean {
  if (state.force || state.fitted === undefined) return true;
  return !state.userMoved && changedALot(state.fitted, state.next);
}

/**
 * The camera distance from the sphere's centre at which the whole sphere fits a perspective view
 * of vertical field of view `fovDegrees` and `aspect` (width ÷ height), with a small margin. A
 * tall, narrow viewer (a phone) fits by its horizontal angle.
 *
 * @example
 * ```ts
 * fitDistance(10, 35, 16 / 9); // ≈ 36
 * ```
 */
export function fitDistance(radius: number, fovDegrees: number, aspect: number): number {
  const vertical = (fovDegrees * Math.PI) / 180;
  const horizontal = 2 * Math.atan(Math.tan(vertical / 2) * Math.max(aspect, 1e-3));
  const angle = Math.min(vertical, horizontal);
  return (Math.max(radius, 1e-3) / Math.sin(angle / 2)) * 1.08;
}
