/**
 * 4×4 affine matrices in column-major order (the layout of manifold-3d's `Mat4`, three.js'
 * `Matrix4.fromArray` and the scene's instance transforms). Instances are placed by these
 * matrices instead of baking copies into one mesh, so every helper here must agree exactly with
 * what manifold-3d does to a solid for the same op: `rotation` uses the same exact sine/cosine
 * for multiples of 90° and the same X-then-Y-then-Z order, `mirroring` the same reflection.
 *
 * Runs in browsers too: no Deno APIs here.
 */

/** A column-major 4×4 matrix: element (row r, column c) is at index `c * 4 + r`. */
export type Mat4 = [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];

/** A point or vector in 3D. */
export type Vec3 = [number, number, number];

/** The identity matrix. */
export function identity(): Mat4 {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
}

/** A translation by `offset`. */
export function translation(offset: Readonly<Vec3>): Mat4 {
  const m = identity();
  m[12] = offset[0];
  m[13] = offset[1];
  m[14] = offset[2];
  return m;
}

/**
 * Sine of an angle in degrees, exact (0, ±1) at multiples of 90° — the rule manifold-3d's `sind`
 * follows, so a rotated instance and a rotated solid land on identical coordinates.
 */
export function sinDegrees(degrees: number): number {
  if (!Number.isFinite(degrees)) return Math.sin(degrees);
  if (degrees < 0) return -sinDegrees(-degrees);
  const quadrant = Math.round(degrees / 90);
  const rest = (degrees - quadrant * 90) * Math.PI / 180;
  switch (quadrant % 4) {
    case 0:
      return Math.sin(rest);
    case 1:
      return Math.cos(rest);
    case 2:
      return -Math.sin(rest);
    default:
      return -Math.cos(rest);
  }
}

/** Cosine of an angle in degrees, exact at multiples of 90° (see `sinDegrees`). */
export function cosDegrees(degrees: number): number {
  return sinDegrees(degrees + 90);
}

/**
 * A rotation by `degrees` about the X axis, then Y, then Z (global axes; manifold's `rotate`).
 *
 * @example
 * ```ts
 * applyToPoint(rotation([0, 0, 90]), [1, 0, 0]); // [0, 1, 0]
 * ```
 */
export function rotation(degrees: Readonly<Vec3>): Mat4 {
  const [cx, sx] = [cosDegrees(degrees[0]), sinDegrees(degrees[0])];
  const [cy, sy] = [cosDegrees(degrees[1]), sinDegrees(degrees[1])];
  const [cz, sz] = [cosDegrees(degrees[2]), sinDegrees(degrees[2])];
  const rx: Mat4 = [1, 0, 0, 0, 0, cx, sx, 0, 0, -sx, cx, 0, 0, 0, 0, 1];
  const ry: Mat4 = [cy, 0, -sy, 0, 0, 1, 0, 0, sy, 0, cy, 0, 0, 0, 0, 1];
  const rz: Mat4 = [cz, sz, 0, 0, -sz, cz, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  return multiply(rz, multiply(ry, rx));
}

/** A scale by `factor` per axis. */
export function scaling(factor: Readonly<Vec3>): Mat4 {
  return [factor[0], 0, 0, 0, 0, factor[1], 0, 0, 0, 0, factor[2], 0, 0, 0, 0, 1];
}

/**
 * The reflection across the plane through the origin with normal `normal` (any non-zero length):
 * `I − 2·n·nᵀ / |n|²`. Throws a RangeError for a zero normal.
 */
export function mirroring(normal: Readonly<Vec3>): Mat4 {
  const [x, y, z] = normal;
  const len2 = x * x + y * y + z * z;
  if (!(len2 > 0) || !Number.isFinite(len2)) throw new RangeError("mirror normal must be non-zero");
  const k = 2 / len2;
  return [
    1 - k * x * x,
    -k * x * y,
    -k * x * z,
    0,
    -k * y * x,
    1 - k * y * y,
    -k * y * z,
    0,
    -k * z * x,
    -k * z * y,
    1 - k * z * z,
    0,
    0,
    0,
    0,
    1,
  ];
}

/**
 * The product `a · b`: applying the result applies `b` first, then `a`.
 *
 * @example
 * ```ts
 * multiply(translation([1, 0, 0]), rotation([0, 0, 90])); // rotate, then move
 * ```
 */
export function multiply(a: Readonly<Mat4>, b: Readonly<Mat4>): Mat4 {
  const out = new Array<number>(16) as Mat4;
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      out[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] +
        a[12 + r] * b[c * 4 + 3];
    }
  }
  return out;
}

/** The image of point `p` under the affine matrix `m` (the last row is taken as 0 0 0 1). */
export function applyToPoint(m: Readonly<Mat4>, p: Readonly<Vec3>): Vec3 {
  return [
    m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
    m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
    m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
  ];
}

/** The determinant of the linear (upper-left 3×3) part: the volume factor, negative if mirrored. */
export function linearDeterminant(m: Readonly<Mat4>): number {
  return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
    m[8] * (m[1] * m[6] - m[5] * m[2]);
}

/** Whether `m` is exactly the identity (so a part needs no per-vertex transform). */
export function isIdentity(m: Readonly<Mat4>): boolean {
  for (let i = 0; i < 16; i++) if (m[i] !== (i % 5 === 0 ? 1 : 0)) return false;
  return true;
}
