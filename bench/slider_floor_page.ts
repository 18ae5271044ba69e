/**
 * The floor's page (bundled for the browser by `bundleFloorPage`, for the slider benches and for
 * first-model's floor, `first_model_floor.ts`): the least a page can do to turn a parameter change
 * into pixels — fetch the render answer's bytes, decode it with the
 * client's own decoder (`decodeRenderBody`, lib/client/render_body.ts: either form, meshopt, so
 * the floor follows the product's codec), swap the geometry in a bare three.js scene and wait two
 * animation frames. No framework, signals, form, ARIA, camera fit, token or DAG substitution.
 *
 * The scene is drawn as the product draws it (same canvas size, renderer settings, lighting and
 * material), so the floor's frames cost what the product's cost: the ratio measures what the
 * product adds, not a cheaper picture. That includes the light: the environment map, or on a
 * software rasterizer the stand-in hemisphere light the product keeps there (`lightAsTheView`,
 * lib/client/scene_view.ts). Meshes are held by hash as decoded arrays (like the client's geometry
 * cache) and a `BufferGeometry` lives while its mesh is on screen.
 *
 * `globalThis.floorChange(url, body)` runs one change and resolves with its milliseconds;
 * `globalThis.floorRecolor(color)` one color pick (the color-pick bench's floor).
 */
import {
  BufferAttribute,
  BufferGeometry,
  Color,
  DirectionalLight,
  Group,
  InstancedMesh,
  Matrix4,
  Mesh,
  MeshStandardMaterial,
  NeutralToneMapping,
  PerspectiveCamera,
  Scene,
  SRGBColorSpace,
  Vector3,
  WebGLRenderer,
} from "three";
import type { DecodedMesh } from "../lib/client/mesh_decode.ts";
import { type DecodedRenderBody, decodeRenderBody } from "../lib/client/render_body.ts";
import { instanceMatrices } from "../lib/dag/wire_instances.ts";
import { fitDistance, sphereOfBox } from "../lib/client/camera_fit.ts";
import { lightAsTheView, partMaterial } from "../lib/client/scene_view.ts";

const params = new URL(location.href).searchParams;
const width = Number(params.get("w") ?? 700);
const height = Number(params.get("h") ?? 500);

const renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(globalThis.devicePixelRatio ?? 1, 2));
renderer.outputColorSpace = SRGBColorSpace;
renderer.toneMapping = NeutralToneMapping;
renderer.setSize(width, height);
document.body.appendChild(renderer.domElement);
const scene = new Scene();
scene.background = new Color("#eef1f5");
const { standIn } = lightAsTheView(renderer, scene);
const key = new DirectionalLight(0xffffff, 0.7);
key.position.set(1, -1.5, 2);
scene.add(key);
const camera = new PerspectiveCamera(35, width / height, 0.1, 10_000);
camera.up.set(0, 0, 1);
camera.position.set(200, -260, 180);
camera.lookAt(0, 0, 0);

const held = new Map<string, DecodedMesh>();
const materials = new Map<string, MeshStandardMaterial>();
let fitted = false;
let shown: { group: Group; geometries: Map<string, BufferGeometry> } | undefined;

function material(color: string): MeshStandardMaterial {
  let m = materials.get(color);
  if (!m) {
    m = partMaterial(color, standIn);
    materials.set(color, m);
  }
  return m;
}

function swap(body: DecodedRenderBody): void {
  for (const [hash, mesh] of body.meshes) held.set(hash, mesh);
  const parts = body.scene.parts;
  const group = new Group();
  const geometries = new Map<string, BufferGeometry>();
  for (const part of parts) {
    let geometry = geometries.get(part.mesh) ?? shown?.geometries.get(part.mesh);
    if (!geometry) {
      const mesh = held.get(part.mesh);
      if (!mesh) throw new Error(`floor: mesh ${part.mesh} is not held`);
      geometry = new BufferGeometry();
      geometry.setAttribute("position", new BufferAttribute(mesh.positions, 3));
      geometry.setIndex(new BufferAttribute(mesh.indices, 1));
      geometry.computeBoundingSphere();
    }
    geometries.set(part.mesh, geometry);
    const instances = instanceMatrices(part);
    if (instances.length === 1) {
      const m = new Mesh(geometry, material(part.color));
      m.matrixAutoUpdate = false;
      m.matrix.fromArray(instances[0]);
      group.add(m);
    } else {
      const m = new InstancedMesh(geometry, material(part.color), instances.length);
      const t = new Matrix4();
      instances.forEach((x, i) => m.setMatrixAt(i, t.fromArray(x)));
      group.add(m);
    }
  }
  scene.add(group);
  if (shown) {
    scene.remove(shown.group);
    for (const [hash, g] of shown.geometries) if (!geometries.has(hash)) g.dispose();
    shown.group.traverse((o) =>
      (o as InstancedMesh).isInstancedMesh && (o as InstancedMesh).dispose()
    );
  }
  shown = { group, geometries };
  // Framed as the product frames it (its first fit), so both draw the same pixels.
  if (!fitted && body.scene.bbox) {
    const { center, radius } = sphereOfBox(body.scene.bbox);
    const distance = fitDistance(radius, camera.fov, camera.aspect);
    const dir = new Vector3(0.9, -1.2, 0.85).normalize();
    camera.position.set(center[0], center[1], center[2]).addScaledVector(dir, distance);
    camera.near = Math.max(distance / 1000, 0.01);
    camera.far = distance * 100;
    camera.updateProjectionMatrix();
    camera.lookAt(center[0], center[1], center[2]);
    fitted = true;
  }
}

const frame = () => new Promise((r) => requestAnimationFrame(r));

/** Draws the scene on the next frame and waits for the frame after (two frames, as the product). */
async function drawThenFrame(): Promise<void> {
  requestAnimationFrame(() => renderer.render(scene, camera));
  await frame();
  await frame();
}

/** POSTs `body` to `url` for an answer's bytes. */
function post(url: string, body: string): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
}

/** Decodes the answer, swaps it in, draws on the next frame and waits for the frame after. */
async function show(answer: Promise<Response>): Promise<void> {
  const res = await answer;
  if (!res.ok) throw new Error(`floor: ${res.url} answered ${res.status}`);
  swap(await decodeRenderBody(new Uint8Array(await res.arrayBuffer())));
  await drawThenFrame();
}

/** One change: POST `body` to `url`, decode, swap, draw on the next frame, wait two frames. */
async function floorChange(url: string, body: string): Promise<number> {
  const t0 = performance.now();
  await show(post(url, body));
  return performance.now() - t0;
}

/** One color pick: every part drawn in `color`, on the next frame, and two frames waited. */
async function floorRecolor(color: string): Promise<number> {
  const t0 = performance.now();
  shown?.group.traverse((o) => {
    if ((o as Mesh).isMesh) (o as Mesh).material = material(color);
  });
  await drawThenFrame();
  return performance.now() - t0;
}

/**
 * First-model mode (`first_model_floor.ts`): the page's inline script has already sent the render
 * request (`globalThis.firstAnswer`), so the answer travels while this module loads and the
 * renderer is made; the model is shown as soon as both are there, and `floor:first-model` is marked
 * when the frame that drew it has been presented, as the product's view marks its first model.
 */
const firstAnswer = (globalThis as { firstAnswer?: Promise<Response> }).firstAnswer;
if (firstAnswer) {
  show(firstAnswer).then(() => performance.mark("floor:first-model"));
} else {
  Object.assign(globalThis, { floorChange, floorRecolor });
  renderer.render(scene, camera);
  document.body.dataset.ready = "true";
}
