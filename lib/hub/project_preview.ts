/**
 * The settings' preview of a published version: the template with every parameter at its default,
 * evaluated by the render services' worker pool (the same evaluation renders use), summarized as
 * bounding box, triangle count, volume and parts, with a picture of it drawn on the server
 * (./scene_picture.ts). No session token is involved: the settings session is the partner's own,
 * and nothing here is served to anyone else. A python-mode version has no template to evaluate
 * (its DAGs come from design.py in the customer's browser), so it has no preview here.
 */
import type { Dag } from "../dag/dag_types.ts";
import { validateParameterSchema } from "../dag/parameter_schema.ts";
import type { Scene } from "../dag/scene.ts";
import { substitute } from "../dag/substitute.ts";
import { AppError } from "../http/problem.ts";
import { getProjectVersion } from "../store/project_versions.ts";
import type { ProjectRef } from "../store/projects.ts";
import { drawScenePicture, type ScenePicture } from "./scene_picture.ts";

/** What the preview shows. */
export interface ProjectPreview {
  version: number;
  bbox: Scene["bbox"];
  triangles: number;
  volume: number;
  parts: Array<{ name: string; color: string; instances: number }>;
  /** The model at its defaults, drawn from the viewer's three-quarter view. */
  picture: ScenePicture;
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
  if (v.mode === "python") {
    throw new AppError(
      "render_failed",
      `Version ${v.version} is a python-mode design: design.py builds its geometry in the ` +
        "customer's browser (docs/design.md), so the settings cannot draw it. Open the hosted " +
        "configurator (Embed, below) to see it.",
    );
  }
  const dag = substitute(v.template as Dag, validateParameterSchema(v.schema), {});
  const scene = await evaluate(dag);
  return {
    picture: await drawScenePicture(scene),
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
