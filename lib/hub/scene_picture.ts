/**
 * A still picture of an evaluated scene, drawn on the server: the settings' project preview shows
 * it as an image, so a partner sees the model without WebGL, JavaScript or a session token (the
 * configurator's viewer needs all three). The look follows the viewer (lib/client/scene_view.ts):
 * Z up, the same three-quarter view direction, background and light directions, flat shading per
 * triangle, each part in its color, every instance drawn.
 *
 * A small software rasterizer: an orthographic projection framed on the scene's bounding box, a
 * depth buffer, two-sided lighting (a mirrored instance flips its winding, so faces are lit from
 * whichever side faces the camera), a darkened silhouette where depth jumps, and 2× supersampling
 * averaged down for smooth edges. Cost is one pass over the triangles plus the pixels they cover.
 */
import type { Scene } from "../dag/scene.ts";
import { decodeMesh, meshDecoderReady } from "../client/mesh_decode.ts";
import { encodePng } from "./png_encode.ts";

/** Size of a picture. */
export interface PictureSize {
  /** Pixels (default 800). */
  width?: number;
  /** Pixels (default 500). */
  height?: number;
}

/** A drawn picture. */
export interface ScenePicture {
  width: number;
  height: number;
  /** The PNG file. */
  png: Uint8Array;
}

/** Largest side of a picture, in pixels. */
export const MAX_PICTURE_SIDE = 2048;

const SUPERSAMPLE = 2;
/** From the model towards the camera (the viewer's `fit` direction). */
const VIEW = normalize([0.9, -1.2, 0.85]);
const KEY_LIGHT = normalize([1, -1.5, 2]);
const RIM_LIGHT = normalize([-1.5, 1, 0.5]);
const BACKGROUND = [0xee, 0xf1, 0xf5];
const MARGIN = 0.06;

/**
 * Draws `scene` as a PNG.
 *
 * @example
 * ```ts
 * const { png } = await drawScenePicture(await render.evaluate(dag), { width: 640, height: 400 });
 * ```
 */
export async function drawScenePicture(
  scene: Scene,
  size: PictureSize = {},
): Promise<ScenePicture> {
  const width = size.width ?? 800;
  const height = size.height ?? 500;
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_PICTURE_SIDE) {
      throw new TypeError(`a picture side is 1–${MAX_PICTURE_SIDE} pixels, not ${side}`);
    }
  }
  const w = width * SUPERSAMPLE;
  const h = height * SUPERSAMPLE;
  const depth = new Float32Array(w * h).fill(-Infinity);
  const color = new Float32Array(w * h * 3);
  const frame = framing(scene, w, h);
  await meshDecoderReady();
  const meshes = new Map<string, ReturnType<typeof decodeMesh>>();
  for (const part of scene.parts) {
    const encoded = scene.meshes[part.mesh];
    if (!encoded) {
      throw new TypeError(`part ${part.name} names mesh ${part.mesh}, not in the scene`);
    }
    let mesh = meshes.get(part.mesh);
    if (!mesh) meshes.set(part.mesh, mesh = decodeMesh(part.mesh, encoded));
    const albedo = hexToLinear(part.color);
    for (const m of part.instances) {
      drawMesh(mesh.positions, mesh.indices, m, albedo, frame, w, h, depth, color);
    }
  }
  const rgb = resolve(depth, color, w, h, width, height);
  return { width, height, png: await encodePng(width, height, rgb) };
}

interface Framing {
  /** The camera's right and up axes in world space. */
  right: number[];
  up: number[];
  /** World units → supersampled pixels, and the pixel position of the view's origin. */
  scale: number;
  cx: number;
  cy: number;
}

/** Fits the projected bounding box (its eight corners) into the picture, keeping a margin. */
function framing(scene: Scene, w: number, h: number): Framing {
  const right = normalize(cross(VIEW.map((v) => -v), [0, 0, 1]));
  const up = cross(right, VIEW.map((v) => -v));
  const { min, max } = scene.bbox;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < 8; i++) {
    const p = [i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]];
    const x = dot(p, right), y = dot(p, up);
    x0 = Math.min(x0, x), x1 = Math.max(x1, x), y0 = Math.min(y0, y), y1 = Math.max(y1, y);
  }
  if (!Number.isFinite(x0 + x1 + y0 + y1)) x0 = y0 = -1, x1 = y1 = 1;
  const spanX = Math.max(x1 - x0, 1e-6), spanY = Math.max(y1 - y0, 1e-6);
  const scale = Math.min(w * (1 - 2 * MARGIN) / spanX, h * (1 - 2 * MARGIN) / spanY);
  return {
    right,
    up,
    scale,
    cx: w / 2 - scale * (x0 + x1) / 2,
    cy: h / 2 + scale * (y0 + y1) / 2,
  };
}

/** Rasterizes one instance of a mesh (`m`: column-major 4×4) into the buffers. */
function drawMesh(
  positions: Float32Array,
  indices: Uint32Array,
  m: number[],
  albedo: number[],
  f: Framing,
  w: number,
  h: number,
  depth: Float32Array,
  color: Float32Array,
): void {
  const n = positions.length / 3;
  const world = new Float64Array(n * 3);
  const screen = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const x = positions[3 * i], y = positions[3 * i + 1], z = positions[3 * i + 2];
    const wx = m[0] * x + m[4] * y + m[8] * z + m[12];
    const wy = m[1] * x + m[5] * y + m[9] * z + m[13];
    const wz = m[2] * x + m[6] * y + m[10] * z + m[14];
    world[3 * i] = wx, world[3 * i + 1] = wy, world[3 * i + 2] = wz;
    screen[3 * i] = f.cx + f.scale * (wx * f.right[0] + wy * f.right[1] + wz * f.right[2]);
    screen[3 * i + 1] = f.cy - f.scale * (wx * f.up[0] + wy * f.up[1] + wz * f.up[2]);
    screen[3 * i + 2] = wx * VIEW[0] + wy * VIEW[1] + wz * VIEW[2];
  }
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t], b = indices[t + 1], c = indices[t + 2];
    const shade = shadeFace(world, a, b, c, albedo);
    if (!shade) continue;
    fillTriangle(screen, a, b, c, shade, w, h, depth, color);
  }
}

/** The lit color of a face (linear RGB), or null for a degenerate one. */
function shadeFace(world: Float64Array, a: number, b: number, c: number, albedo: number[]) {
  const ux = world[3 * b] - world[3 * a], uy = world[3 * b + 1] - world[3 * a + 1];
  const uz = world[3 * b + 2] - world[3 * a + 2];
  const vx = world[3 * c] - world[3 * a], vy = world[3 * c + 1] - world[3 * a + 1];
  const vz = world[3 * c + 2] - world[3 * a + 2];
  let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  const len = Math.hypot(nx, ny, nz);
  if (len === 0 || !Number.isFinite(len)) return null;
  nx /= len, ny /= len, nz /= len;
  // Two-sided: light the side that faces the camera.
  if (nx * VIEW[0] + ny * VIEW[1] + nz * VIEW[2] < 0) nx = -nx, ny = -ny, nz = -nz;
  const hemi = 0.5 + 0.5 * nz; // sky from above, ground from below
  const key = Math.max(0, nx * KEY_LIGHT[0] + ny * KEY_LIGHT[1] + nz * KEY_LIGHT[2]);
  const rim = Math.max(0, nx * RIM_LIGHT[0] + ny * RIM_LIGHT[1] + nz * RIM_LIGHT[2]);
  const light = 0.18 + 0.3 * hemi + 0.62 * key + 0.18 * rim;
  return [albedo[0] * light, albedo[1] * light, albedo[2] * light];
}

/** Fills a screen triangle with a flat color where it is nearer than what is there. */
function fillTriangle(
  s: Float64Array,
  a: number,
  b: number,
  c: number,
  rgb: number[],
  w: number,
  h: number,
  depth: Float32Array,
  color: Float32Array,
): void {
  const ax = s[3 * a], ay = s[3 * a + 1], az = s[3 * a + 2];
  const bx = s[3 * b], by = s[3 * b + 1], bz = s[3 * b + 2];
  const cx = s[3 * c], cy = s[3 * c + 1], cz = s[3 * c + 2];
  const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  if (area === 0 || !Number.isFinite(area)) return;
  const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
  const x1 = Math.min(w - 1, Math.ceil(Math.max(ax, bx, cx)));
  const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
  const y1 = Math.min(h - 1, Math.ceil(Math.max(ay, by, cy)));
  const inv = 1 / area;
  // Barycentric weights are linear in x: per row, solve for the span where all three are ≥ 0
  // (with a hair of slack so shared edges leave no gaps), then step along it.
  const dax = (by - cy) * inv, dbx = (cy - ay) * inv, dcx = -dax - dbx;
  const dz = dax * az + dbx * bz + dcx * cz;
  const eps = 1e-9;
  for (let y = y0; y <= y1; y++) {
    const py = y + 0.5;
    // Weights at x = 0 of this row.
    const wa0 = ((bx - 0.5) * (cy - py) - (by - py) * (cx - 0.5)) * inv - 0.5 * dax;
    const wb0 = ((cx - 0.5) * (ay - py) - (cy - py) * (ax - 0.5)) * inv - 0.5 * dbx;
    const wc0 = 1 - wa0 - wb0;
    let lo = x0, hi = x1;
    for (const [w0, d] of [[wa0, dax], [wb0, dbx], [wc0, dcx]]) {
      // w0 + d·(x + 0.5) ≥ 0
      if (d > 0) lo = Math.max(lo, Math.ceil(-w0 / d - 0.5 - eps));
      else if (d < 0) hi = Math.min(hi, Math.floor(-w0 / d - 0.5 + eps));
      else if (w0 < -eps) hi = lo - 1;
    }
    if (lo > hi) continue;
    const wa = wa0 + dax * (lo + 0.5), wb = wb0 + dbx * (lo + 0.5);
    let z = wa * az + wb * bz + (1 - wa - wb) * cz;
    for (let x = lo, i = y * w + lo; x <= hi; x++, i++, z += dz) {
      if (z <= depth[i]) continue;
      depth[i] = z;
      color[3 * i] = rgb[0], color[3 * i + 1] = rgb[1], color[3 * i + 2] = rgb[2];
    }
  }
}

/**
 * Averages the supersampled buffers down to the picture, in sRGB. A covered sample next to a
 * background sample or a much nearer one is darkened, which outlines the silhouette and
 * overlapping parts.
 */
function resolve(
  depth: Float32Array,
  color: Float32Array,
  w: number,
  h: number,
  width: number,
  height: number,
): Uint8Array {
  let zMin = Infinity, zMax = -Infinity;
  for (const z of depth) if (z !== -Infinity) zMin = Math.min(zMin, z), zMax = Math.max(zMax, z);
  const jump = Math.max((zMax - zMin) * 0.04, 1e-9);
  const bg = BACKGROUND.map((v) => srgbToLinear(v / 255));
  const out = new Uint8Array(width * height * 3);
  const k = SUPERSAMPLE * SUPERSAMPLE;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const px = x * SUPERSAMPLE + sx, py = y * SUPERSAMPLE + sy;
          const i = py * w + px;
          const z = depth[i];
          if (z === -Infinity) {
            r += bg[0], g += bg[1], b += bg[2];
            continue;
          }
          const edge = nearer(depth, px > 0 ? i - 1 : i, z, jump) ||
              nearer(depth, px < w - 1 ? i + 1 : i, z, jump) ||
              nearer(depth, py > 0 ? i - w : i, z, jump) ||
              nearer(depth, py < h - 1 ? i + w : i, z, jump)
            ? 0.55
            : 1;
          r += color[3 * i] * edge, g += color[3 * i + 1] * edge, b += color[3 * i + 2] * edge;
        }
      }
      const o = 3 * (y * width + x);
      out[o] = toByte(r / k), out[o + 1] = toByte(g / k), out[o + 2] = toByte(b / k);
    }
  }
  return out;
}

/** Whether sample `j` is background or much nearer than depth `z` (an outline sample). */
function nearer(depth: Float32Array, j: number, z: number, jump: number): boolean {
  return depth[j] === -Infinity || depth[j] - z > jump;
}

function hexToLinear(hex: string): number[] {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  const n = m ? parseInt(m[1], 16) : 0x8899aa;
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => srgbToLinear(v / 255));
}

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function toByte(linear: number): number {
  const c = Math.min(1, Math.max(0, linear));
  const s = c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
  return Math.round(s * 255);
}

function normalize(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / l, v[1] / l, v[2] / l];
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function dot(a: number[], b: number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
