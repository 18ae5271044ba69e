/**
 * What every export format is built from: the scene's parts (names, colours, instance transforms)
 * and the exact geometry of each mesh hash (lib/kernel/evaluate.ts `evaluateDagExact`), never the
 * quantized wire form. Model units are millimetres, +Z up.
 */
import type { ScenePart } from "../../dag/scene.ts";
import type { ExactMesh } from "../evaluate.ts";

/** The input of an export: parts by hash, exact meshes by hash, and a title for the file. */
export interface ExportModel {
  /** The project (its slug), written into the file's metadata. */
  title: string;
  parts: ScenePart[];
  meshes: ReadonlyMap<string, ExactMesh>;
}

/** The parts that draw something (a part whose solid is empty has no triangles to export). */
export function drawnParts(model: ExportModel): Array<ScenePart & { exact: ExactMesh }> {
  const out: Array<ScenePart & { exact: ExactMesh }> = [];
  for (const part of model.parts) {
    const exact = model.meshes.get(part.mesh);
    if (!exact) throw new Error(`mesh ${part.mesh} of part "${part.name}" is missing`);
    if (exact.indices.length > 0 && part.instances.length > 0) out.push({ ...part, exact });
  }
  return out;
}

/** The determinant of a column-major 4×4 transform's linear part (< 0: a mirror). */
export function determinant(t: readonly number[]): number {
  return t[0] * (t[5] * t[10] - t[9] * t[6]) -
    t[4] * (t[1] * t[10] - t[9] * t[2]) +
    t[8] * (t[1] * t[6] - t[5] * t[2]);
}

/** True for the identity transform (the common case of a plain part). */
export function isIdentity(t: readonly number[]): boolean {
  for (let i = 0; i < 16; i++) if (t[i] !== (i % 5 === 0 ? 1 : 0)) return false;
  return true;
}

/** `#rrggbb` as three sRGB components in 0–1. */
export function srgbOf(color: string): [number, number, number] {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!m) return [0.8, 0.8, 0.8];
  return [parseInt(m[1], 16) / 255, parseInt(m[2], 16) / 255, parseInt(m[3], 16) / 255];
}

/** An sRGB component (0–1) in linear light, as glTF's `baseColorFactor` wants it. */
export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}
