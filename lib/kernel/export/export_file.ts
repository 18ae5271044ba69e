/**
 * Builds an export file of one evaluated configuration (docs/exports.md): the format's builder
 * over the scene's parts and the exact meshes. Runs on the render worker that evaluated the DAG,
 * so the exact geometry never crosses threads and the request thread only receives bytes.
 */
import type { ExportFormat } from "../../dag/export_format.ts";
import type { ExportModel } from "./export_model.ts";
import { buildGlb } from "./glb.ts";
import { buildStl } from "./stl.ts";
import { build3mf } from "./threemf.ts";

const BUILDERS: Record<ExportFormat, (model: ExportModel) => Uint8Array> = {
  glb: buildGlb,
  stl: buildStl,
  "3mf": build3mf,
};

/**
 * The file of `model` in `format`.
 *
 * @example
 * ```ts
 * const { scene, exact } = await evaluateDagExact(dag);
 * const glb = buildExportFile("glb", { title: "vase", parts: scene.parts, meshes: exact });
 * ```
 */
export function buildExportFile(format: ExportFormat, model: ExportModel): Uint8Array {
  return BUILDERS[format](model);
}
