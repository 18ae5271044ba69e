/**
 * The settings' preview of a published version: the template with every parameter at its default,
 * evaluated by the render services' worker pool (the same evaluation renders use), summarized as
 * bounding box, triangle count, volume and parts.
 */
import type { Dag } from "../dag/dag_types.ts";
import { validateParameterSchema } from "../dag/parameter_schema.ts";
import type { Scene } from "../dag/scene.ts";
import { substitute } from "../dag/substitute.ts";
import { AppError } from "../http/problem.ts";
import { getProjectVersion } from "../store/project_versions.ts";
import type { ProjectRef } from "../store/projects.ts";

/** What the preview shows. */
export interface ProjectPreview {
  version: number;
  bbox: Scene["bbox"];
  triangles: number;
  volume: number;
  parts: Array<{ name: string; color: string; instances: number }>;
}

/**
 * Evaluates the current (or given) version of the partner's project at its defaults.
 *
 * @example
 * ```ts
 * const p = await previewProject(kv, (dag) => render.evaluate(dag), { partnerId, slug: "wall-bracket" });
 * p.triangles;
 * ```
 */
export async function previewProject(
  kv: Deno.Kv,
  evaluate: (dag: Dag) => Promise<Scene>,
  project: ProjectRef,
  version?: number,
): Promise<ProjectPreview> {
  const v = await getProjectVersion(kv, project, version);
  if (!v) {
    throw new AppError(
      "unknown_project_version",
      `"${project.slug}" has no published version yet.`,
    );
  }
  const dag = substitute(v.template as Dag, validateParameterSchema(v.schema), {});
  const scene = await evaluate(dag);
  return {
    version: v.version,
    bbox: scene.bbox,
    triangles: scene.triangles,
    volume: scene.volume,
    parts: scene.parts.map((p) => ({
      name: p.name,
      color: p.color,
      instances: p.instances.length,
    })),
  };
}
