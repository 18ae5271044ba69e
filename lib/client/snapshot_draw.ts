/**
 * The cart snapshot's drawing (`snapshot.ts`, whose `renderSnapshot` loads this module on its
 * first call): the parts in a WebGL renderer of its own on a canvas never on the page, lit and
 * shaded as the view (`SCENE_LOOK`, `lightAsTheView`), from the isometric frame, read back as a
 * PNG. Everything GPU-side is freed, context included, before it resolves.
 *
 * Runs in browsers: no Deno APIs here.
 */
import {
  BufferGeometry,
  Color,
  DirectionalLight,
  Group,
  InstancedMesh,
  MeshStandardMaterial,
  NeutralToneMapping,
  OrthographicCamera,
  Scene,
  SRGBColorSpace,
  Vector3,
  WebGLRenderer,
} from "three";
import type { RenderResult } from "./render_result.ts";
import {
  lightAsTheView,
  partGeometry,
  partMaterial,
  partObject,
  SCENE_LOOK,
} from "./scene_view.ts";
import { SnapshotError } from "./snapshot_error.ts";
import { isometricFrame } from "./snapshot_frame.ts";

/** What `drawSnapshot` draws: a checked size, and the background as given (checked here). */
export interface SnapshotCanvas {
  width: number;
  height: number;
  background: string;
}

/**
 * A PNG of `result` at `width` × `height` on `background` (a CSS colour three.js reads, or
 * `"transparent"`); rejects with `SnapshotError`.
 */
export async function drawSnapshot(
  result: RenderResult,
  { width, height, background }: SnapshotCanvas,
): Promise<Blob> {
  const transparent = background === "transparent";
  let color: Color | null = null;
  if (!transparent) {
    if (typeof background !== "string" || !supportsColor(background)) {
      throw new SnapshotError(
        "invalid_snapshot_options",
        `background is a CSS colour or "transparent", got ${JSON.stringify(background)}`,
      );
    }
    color = new Color(background);
  }
  if (!result || !Array.isArray(result.parts) || result.parts.length === 0) {
    throw new SnapshotError("no_scene", "there is no rendered scene to take a snapshot of yet");
  }
  const canvas = document.createElement("canvas");
  let renderer: WebGLRenderer;
  try {
    renderer = new WebGLRenderer({
      canvas,
      antialias: true,
      alpha: transparent,
      preserveDrawingBuffer: true,
    });
  } catch (err) {
    throw new SnapshotError(
      "webgl_unavailable",
      `this browser could not draw the snapshot (${err instanceof Error ? err.message : err})`,
    );
  }
  const owned: Array<{ dispose(): void }> = [];
  try {
    renderer.setPixelRatio(1);
    renderer.outputColorSpace = SRGBColorSpace;
    renderer.toneMapping = NeutralToneMapping;
    renderer.toneMappingExposure = 1;
    if (transparent) renderer.setClearColor(0x000000, 0);
    const scene = new Scene();
    scene.background = color;
    const { standIn, environment } = lightAsTheView(renderer, scene);
    if (environment) owned.push(environment);
    // PMREM leaves its own viewport behind: size the drawing after it.
    renderer.setSize(width, height, false);
    const key = new DirectionalLight(0xffffff, SCENE_LOOK.keyLight.intensity);
    key.position.set(...SCENE_LOOK.keyLight.direction);
    scene.add(key);
    scene.add(buildParts(result, owned, standIn));
    const frame = isometricFrame(result.bbox, width / height);
    const camera = new OrthographicCamera(
      -frame.halfWidth,
      frame.halfWidth,
      frame.halfHeight,
      -frame.halfHeight,
      frame.near,
      frame.far,
    );
    camera.up.set(0, 0, 1);
    camera.position.fromArray(frame.position);
    camera.lookAt(new Vector3().fromArray(frame.target));
    camera.updateProjectionMatrix();
    renderer.render(scene, camera);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob(
        (blob) =>
          blob ? resolve(blob) : reject(
            new SnapshotError("webgl_unavailable", "the browser could not encode the PNG"),
          ),
        "image/png",
      )
    );
  } finally {
    for (const resource of owned) resource.dispose();
    renderer.dispose();
    // Frees the context now rather than at garbage collection (browsers cap live contexts).
    renderer.forceContextLoss();
  }
}

/** The parts as three.js meshes; their geometries and materials go into `owned`. */
function buildParts(
  result: RenderResult,
  owned: Array<{ dispose(): void }>,
  standIn: boolean,
): Group {
  const group = new Group();
  const geometries = new Map<string, BufferGeometry>();
  const materials = new Map<string, MeshStandardMaterial>();
  for (const part of result.parts) {
    let geometry = geometries.get(part.mesh.hash);
    if (!geometry) {
      geometry = partGeometry(part.mesh.positions, part.mesh.indices);
      geometries.set(part.mesh.hash, geometry);
      owned.push(geometry);
    }
    let material = materials.get(part.color);
    if (!material) {
      material = partMaterial(part.color, standIn);
      materials.set(part.color, material);
      owned.push(material);
    }
    const object = partObject(geometry, material, part.instances);
    if (object instanceof InstancedMesh) owned.push(object);
    if (object) group.add(object);
  }
  return group;
}

/** Whether three's `Color` reads `color` (else it would warn and draw white). */
function supportsColor(color: string): boolean {
  return /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(color) ||
    /^(?:rgb|hsl)a?\([^()]*\)$/i.test(color) || Object.hasOwn(Color.NAMES, color.toLowerCase());
}
