/**
 * The USDZ of a rendered configuration, for iOS AR Quick Look ("View in AR", docs/embedding.md).
 * Made in the browser with three.js's `USDZExporter` from the meshes the shopper sees, so no
 * server round trip stands between the tap and Quick Look. Loaded lazily (`ar_launch.ts` imports
 * it on the first AR tap), so it costs the first load nothing.
 *
 * - **Scale and axes.** The kernel's model units are millimetres with +Z up; USD here has
 *   `metersPerUnit = 1` and `upAxis = "Y"`. One root transform scales by 0.001 and turns +Z up
 *   into +Y up, with the model's footprint centred on the origin and its lowest point on it, so
 *   Quick Look puts the part on the floor at true size (`allowsContentScaling=0` keeps it there).
 * - **One mesh per part instance**, named after the part, referencing one geometry layer per mesh
 *   (instances share it); a mirrored instance (negative determinant, which USD cannot express as a
 *   scale) gets its own geometry with the transform baked in and the winding reversed.
 * - **Normals.** CAD meshes share vertices across sharp edges, so vertex normals would smear every
 *   edge; vertices are split where faces meet at more than `USDZ_CREASE_ANGLE` (flat faces stay
 *   flat, curved faces smooth), then equal vertices merged again.
 * - **Materials.** One `UsdPreviewSurface` per part colour with the view's roughness and metalness
 *   (`SCENE_LOOK`), so the part looks as on screen.
 *
 * Runs in browsers (and Deno, for the tests): no DOM is touched.
 */
import {
  BufferAttribute,
  BufferGeometry,
  Color,
  Group,
  Matrix4,
  Mesh,
  MeshStandardMaterial,
  Scene,
} from "three";
import { USDZExporter } from "three/examples/jsm/exporters/USDZExporter.js";
import { mergeVertices, toCreasedNormals } from "three/examples/jsm/utils/BufferGeometryUtils.js";
import type { BoundingBox } from "../dag/scene.ts";
import { SCENE_LOOK } from "./scene_view.ts";

/** Faces meeting at more than this angle (radians) keep a hard edge in the USDZ (30°). */
export const USDZ_CREASE_ANGLE = Math.PI / 6;

/** The media type of a USDZ file (what Quick Look expects of a blob). */
export const USDZ_CONTENT_TYPE = "model/vnd.usdz+zip";

/** One part to export: the render result's part shape (`RenderedPart`). */
export interface UsdzPart {
  name: string;
  /** `#rrggbb`. */
  color: string;
  mesh: { hash: string; positions: Float32Array; indices: Uint32Array };
  /** Column-major 4×4 transforms in millimetres, one per instance. */
  instances: number[][];
}

/** What a USDZ is made of: the parts and the scene's bounding box (millimetres, +Z up). */
export interface UsdzInput {
  parts: readonly UsdzPart[];
  bbox: BoundingBox;
}

/**
 * The root transform from the kernel's frame (mm, +Z up) to USD's here (m, +Y up): the footprint
 * centred on the origin, the lowest point on it, then scaled by 0.001 and turned −90° about X.
 */
export function usdzRootMatrix(bbox: BoundingBox): Matrix4 {
  const centre = new Matrix4().makeTranslation(
    -(bbox.min[0] + bbox.max[0]) / 2,
    -(bbox.min[1] + bbox.max[1]) / 2,
    -bbox.min[2],
  );
  const turn = new Matrix4().makeRotationX(-Math.PI / 2);
  return new Matrix4().makeScale(0.001, 0.001, 0.001).multiply(turn).multiply(centre);
}

/**
 * Builds the USDZ of `input` (an uncompressed zip, `model.usda` first, entries 64-byte aligned).
 *
 * @example
 * ```ts
 * const bytes = await buildUsdz(renderResult);
 * const blob = new Blob([bytes], { type: USDZ_CONTENT_TYPE });
 * ```
 */
export async function buildUsdz(input: UsdzInput): Promise<Uint8Array<ArrayBuffer>> {
  const owned: Array<{ dispose(): void }> = [];
  try {
    const scene = new Scene();
    const root = new Group();
    root.name = "Model";
    root.matrixAutoUpdate = false;
    root.matrix.copy(usdzRootMatrix(input.bbox));
    scene.add(root);
    const geometries = new Map<string, BufferGeometry>();
    const materials = new Map<string, MeshStandardMaterial>();
    for (const part of input.parts) {
      if (part.mesh.indices.length === 0) continue;
      let material = materials.get(part.color);
      if (!material) {
        material = new MeshStandardMaterial({
          color: new Color(part.color),
          roughness: SCENE_LOOK.material.roughness,
          metalness: SCENE_LOOK.material.metalness,
        });
        materials.set(part.color, material);
        owned.push(material);
      }
      for (const transform of part.instances) {
        const matrix = new Matrix4().fromArray(transform);
        let geometry: BufferGeometry;
        if (matrix.determinant() < 0) {
          geometry = shadedGeometry(part.mesh.positions, part.mesh.indices, matrix);
          owned.push(geometry);
          matrix.identity();
        } else {
          let shared = geometries.get(part.mesh.hash);
          if (!shared) {
            shared = shadedGeometry(part.mesh.positions, part.mesh.indices, null);
            geometries.set(part.mesh.hash, shared);
            owned.push(shared);
          }
          geometry = shared;
        }
        const mesh = new Mesh(geometry, material);
        mesh.name = part.name;
        mesh.matrixAutoUpdate = false;
        mesh.matrix.copy(matrix);
        root.add(mesh);
      }
    }
    const zip = await new USDZExporter().parseAsync(scene, {
      quickLookCompatible: true,
      ar: { anchoring: { type: "plane" }, planeAnchoring: { alignment: "horizontal" } },
    });
    return new Uint8Array(zip);
  } finally {
    for (const resource of owned) resource.dispose();
  }
}

/**
 * An indexed geometry with creased normals; with `bake`, the positions transformed by it and the
 * winding reversed (a mirror turns triangles inside out).
 */
function shadedGeometry(
  positions: Float32Array,
  indices: Uint32Array,
  bake: Matrix4 | null,
): BufferGeometry {
  const source = new BufferGeometry();
  let p = positions;
  let ix = indices;
  if (bake) {
    p = new Float32Array(positions);
    const e = bake.elements;
    for (let i = 0; i < p.length; i += 3) {
      const x = p[i], y = p[i + 1], z = p[i + 2];
      p[i] = e[0] * x + e[4] * y + e[8] * z + e[12];
      p[i + 1] = e[1] * x + e[5] * y + e[9] * z + e[13];
      p[i + 2] = e[2] * x + e[6] * y + e[10] * z + e[14];
    }
    ix = new Uint32Array(indices);
    for (let t = 0; t < ix.length; t += 3) [ix[t + 1], ix[t + 2]] = [ix[t + 2], ix[t + 1]];
  }
  source.setAttribute("position", new BufferAttribute(p, 3));
  source.setIndex(new BufferAttribute(ix, 1));
  const creased = toCreasedNormals(source, USDZ_CREASE_ANGLE);
  const merged = mergeVertices(creased);
  source.dispose();
  creased.dispose();
  return merged;
}
