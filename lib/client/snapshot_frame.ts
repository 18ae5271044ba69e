/**
 * The cart snapshot's camera preset `isometric` (`snapshot.ts`): an orthographic view of the
 * bounding box from (1, −1, 1), fitted with a margin, in plain numbers (no three.js here).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { BoundingBox } from "../dag/scene.ts";

/** The margin left free around the fitted bounding box, as a fraction of the image on each side. */
export const ISOMETRIC_MARGIN = 0.06;

/** The isometric camera for a bounding box: where it stands and the half-extents it sees. */
export interface SnapshotFrame {
  /** The point looked at (the bounding box's centre). */
  target: [number, number, number];
  /** The camera's position (along (1, −1, 1) from the target, outside the box). */
  position: [number, number, number];
  /** Half the visible width and height in model units (the image's aspect ratio). */
  halfWidth: number;
  halfHeight: number;
  near: number;
  far: number;
}

/** The view direction of the `isometric` preset (from the target towards the camera). */
export const ISOMETRIC_DIRECTION: readonly [number, number, number] = [
  1 / Math.sqrt(3),
  -1 / Math.sqrt(3),
  1 / Math.sqrt(3),
];

/**
 * The isometric frame fitted to `bbox` for an image of `aspect` (width / height) with `margin`
 * of the image left free on every side.
 *
 * @example
 * ```ts
 * isometricFrame({ min: [0, 0, 0], max: [10, 10, 10] }, 1); // halfWidth ≈ halfHeight ≈ 9.4
 * ```
 */
export function isometricFrame(
  bbox: BoundingBox,
  aspect: number,
  margin: number = ISOMETRIC_MARGIN,
): SnapshotFrame {
  const [dx, dy, dz] = ISOMETRIC_DIRECTION;
  const centre = [0, 1, 2].map((i) => (bbox.min[i] + bbox.max[i]) / 2) as [number, number, number];
  // The camera's right (up × back) and up (back × right) axes, Z being the world's up.
  const right = normalize([-dy, dx, 0]);
  const up = cross([dx, dy, dz], right);
  let maxX = 0;
  let maxY = 0;
  let maxDepth = 0;
  for (let corner = 0; corner < 8; corner++) {
    const p = [0, 1, 2].map((i) => ((corner >> i) & 1 ? bbox.max[i] : bbox.min[i]) - centre[i]);
    maxX = Math.max(maxX, Math.abs(dot(p, right)));
    maxY = Math.max(maxY, Math.abs(dot(p, up)));
    maxDepth = Math.max(maxDepth, Math.abs(dot(p, [dx, dy, dz])));
  }
  // Fit the box into the image less its margins, keeping the image's aspect ratio.
  const fill = 1 - 2 * margin;
  let halfWidth = Math.max(maxX, 1e-6) / fill;
  let halfHeight = Math.max(maxY, 1e-6) / fill;
  if (halfWidth / halfHeight > aspect) halfHeight = halfWidth / aspect;
  else halfWidth = halfHeight * aspect;
  const distance = maxDepth * 2 + 1;
  return {
    target: centre,
    position: [centre[0] + dx * distance, centre[1] + dy * distance, centre[2] + dz * distance],
    halfWidth,
    halfHeight,
    near: Math.max(distance - maxDepth * 1.5 - 1, 1e-3),
    far: distance + maxDepth * 1.5 + 1,
  };
}

function dot(a: number[], b: readonly number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function cross(a: readonly number[], b: readonly number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalize(v: number[]): number[] {
  const length = Math.hypot(v[0], v[1], v[2]);
  return v.map((x) => x / length);
}
