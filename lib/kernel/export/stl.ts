/**
 * Binary STL: every instance of every part placed in the assembly's coordinates (millimetres), one
 * facet per triangle with its unit normal. A mirrored instance (negative determinant) has its
 * vertex order reversed, so every facet still winds counter-clockwise seen from outside. The
 * 80-byte header never starts with "solid" (some readers would take the file for ASCII STL).
 */
import type { ExportModel } from "./export_model.ts";
import { determinant, drawnParts } from "./export_model.ts";

/** Builds the binary STL of a model. */
export function buildStl(model: ExportModel): Uint8Array {
  const parts = drawnParts(model);
  let facets = 0;
  for (const part of parts) facets += (part.exact.indices.length / 3) * part.instances.length;
  const out = new Uint8Array(84 + 50 * facets);
  const header = new TextEncoder().encode(`cad-configurator ${model.title}`.slice(0, 80));
  out.set(header.subarray(0, 80));
  const view = new DataView(out.buffer);
  view.setUint32(80, facets, true);
  let at = 84;
  const a = [0, 0, 0], b = [0, 0, 0], c = [0, 0, 0];
  for (const part of parts) {
    const { positions, indices } = part.exact;
    for (const t of part.instances) {
      const flip = determinant(t) < 0;
      for (let i = 0; i < indices.length; i += 3) {
        place(t, positions, indices[i], a);
        place(t, positions, indices[flip ? i + 2 : i + 1], b);
        place(t, positions, indices[flip ? i + 1 : i + 2], c);
        const ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
        const vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
        let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        const length = Math.hypot(nx, ny, nz);
        if (length > 0) {
          nx /= length;
          ny /= length;
          nz /= length;
        }
        view.setFloat32(at, nx, true);
        view.setFloat32(at + 4, ny, true);
        view.setFloat32(at + 8, nz, true);
        for (let k = 0; k < 3; k++) {
          view.setFloat32(at + 12 + k * 4, a[k], true);
          view.setFloat32(at + 24 + k * 4, b[k], true);
          view.setFloat32(at + 36 + k * 4, c[k], true);
        }
        at += 50; // the two attribute bytes stay 0
      }
    }
  }
  return out;
}

/** Vertex `v` of `positions` placed by the column-major transform `t`, into `out`. */
function place(t: readonly number[], positions: Float32Array, v: number, out: number[]): void {
  const x = positions[v * 3], y = positions[v * 3 + 1], z = positions[v * 3 + 2];
  out[0] = t[0] * x + t[4] * y + t[8] * z + t[12];
  out[1] = t[1] * x + t[5] * y + t[9] * z + t[13];
  out[2] = t[2] * x + t[6] * y + t[10] * z + t[14];
}
