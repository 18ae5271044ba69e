/**
 * The three.js side of the viewer, framework-free: draws `RenderResult`s into a canvas.
 *
 * - Geometry is shared by mesh hash and reference-counted across scenes: a part whose mesh did not
 *   change keeps its `BufferGeometry` (no re-upload to the GPU), and a geometry no scene uses any
 *   more is disposed when the scene that used it is replaced. `geometryCount` (three's
 *   `renderer.info.memory.geometries`) therefore stays flat over any number of replacements.
 * - A part with several instances is one `InstancedMesh` (one draw call), a part with one a `Mesh`.
 * - Flat shading: CAD meshes share vertices across sharp edges, so smooth vertex normals would
 *   smear every edge; flat shading derives face normals in the shader at no CPU cost.
 * - Renders on demand (orbit, resize, new scene), not in a loop, so an idle configurator costs
 *   nothing, and not at all before the first scene (an undrawn canvas is transparent over the
 *   stage's background). Z is up, as in the kernel's coordinates.
 * - The camera fits the first scene, and refits a later one whose bounds changed a lot unless the
 *   shopper moved the camera since the last fit (`camera_fit.ts`); `fit()` always refits.
 * - Time to first model: the environment map below is the costliest GPU work before the first
 *   model (several seconds with a software GL such as SwiftShader, which holds the page
 *   meanwhile), so the first model is drawn under a stand-in hemisphere light of about the same
 *   brightness (`SCENE_STAND_IN`) and the map is built once that frame has been presented
 *   (`prepare()`), then drawn with. `FIRST_MODEL_MARKS` time it on the page.
 * - On a software rasterizer (SwiftShader — Chrome's fallback without a usable GPU —, llvmpipe;
 *   `software_gl.ts`) the view keeps the stand-in light and builds no map (`environment: "auto"`,
 *   the default): prefiltering the map holds the main thread there for 3.7–4.4 s after the first
 *   model, during which a shopper cannot move a slider; the stand-in (`SCENE_STAND_IN`) was fitted
 *   to look like the map. `environment: "map"` builds it anyway, `"stand-in"` never.
 * - Light is image-based: three's `RoomEnvironment` prefiltered by `PMREMGenerator` (soft, even
 *   reflections from every side, so no face of a part goes black), one key light for shape, tone
 *   mapping and sRGB output. The tone mapping is `neutral` (Khronos PBR Neutral) by default: it
 *   leaves base colours as they are up to the highlights, so a part looks the colour its DAG says.
 *   Measured on the spur gear (#c9a227, hue 45°, saturation 0.68) in Chromium: with neutral the
 *   lit top face is within one 16-level step of #c9a227 and the drawn pixels average hue 45°, saturation 0.70; with ACES
 *   filmic the top face washes out to #e8d888 (hue 48°, saturation 0.61), with AgX to #d8b888
 *   (saturation 0.39). ACES filmic or AgX can still be chosen (`toneMapping`). The environment's
 *   intensity (0.55) and the key light's (0.7) put the most-lit face at the DAG's colour.
 * - WebGL context loss (a GPU reset, too many contexts on a page, a phone reclaiming memory) is
 *   survived: on `webglcontextlost` the default is prevented (so the browser may restore it) and
 *   `onContextChange(true)` lets the page show a quiet notice; on `webglcontextrestored` three.js
 *   re-creates its GL state, the view rebuilds what lived only on the GPU (the environment map;
 *   geometries and materials upload again from their CPU copies) and draws the scene again.
 * - Keyboard (WCAG 2.1.1, and 2.5.7's single-pointer alternative through `orbit`/`zoom`): the
 *   container listens for keys (`view_keys.ts`: arrows orbit 15°, + / − and PageUp / PageDown
 *   zoom, Home refits); the page makes it focusable and describes it. Every move is one instant
 *   step and damping stays off, so nothing animates (prefers-reduced-motion holds by design).
 *
 * Runs in browsers: no Deno APIs here.
 */

import {
  ACESFilmicToneMapping,
  AgXToneMapping,
  Box3,
  BufferAttribute,
  BufferGeometry,
  Color,
  DirectionalLight,
  Group,
  HemisphereLight,
  InstancedMesh,
  Matrix4,
  Mesh,
  MeshStandardMaterial,
  NeutralToneMapping,
  PerspectiveCamera,
  PMREMGenerator,
  Scene,
  Sphere,
  SRGBColorSpace,
  type Texture,
  type ToneMapping,
  Vector3,
  WebGLRenderer,
} from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { RoomEnvironment } from "three/examples/jsm/environments/RoomEnvironment.js";
import { isSoftwareRenderer, rendererName } from "./software_gl.ts";
import type { RenderResult } from "./render_result.ts";
import { drawsTheSame } from "./same_picture.ts";
import { type BoundingSphere, fitDistance, shouldRefit, sphereOfBox } from "./camera_fit.ts";
import { viewKeyAction } from "./view_keys.ts";

/**
 * User Timing marks a view makes once, on the page's performance timeline (time to first model:
 * bench/first_model_bench.ts): `scene` when its first scene is handed to it (decoded, about to be
 * swapped in), `model` when the frame that drew it has been presented (the next frame begins). `detail.view` numbers the views
 * of the page from 1, so several configurators stay apart.
 */
export const FIRST_MODEL_MARKS = {
  scene: "cad-configurator:first-scene",
  model: "cad-configurator:first-model",
} as const;

let viewsMade = 0;

/**
 * The light a view draws with until its environment map is built (`SceneView.prepare`), and for
 * good on a software rasterizer: a sky and ground hemisphere (with `SCENE_LOOK`'s key light), and
 * `sheen`, a neutral emissive (linear) on every material standing in for the environment's soft
 * specular, which lifts every channel alike. Fitted in Chromium's SwiftShader to the environment-
 * lit faces of a flat-shaded cube from the snapshot's isometric preset in four colours (the
 * examples' blue, gold, red and grey): RMS difference of the three faces' sRGB channels 13.9
 * levels (the hemisphere alone, as before: 21.7); the blue's top face (67, 107, 164) against its
 * colour #4a6fa5 (74, 111, 165) and the environment's (79, 115, 169).
 */
export const SCENE_STAND_IN = {
  sky: 0xffffff,
  ground: 0x202020,
  intensity: 3.0,
  sheen: 0.025,
} as const;

/**
 * The stand-in's hemisphere light (`SCENE_STAND_IN`), sky up the Z axis as in the kernel's
 * coordinates; materials drawn under it take `SCENE_STAND_IN.sheen` as their emissive.
 */
export function standInLight(): HemisphereLight {
  const light = new HemisphereLight(
    SCENE_STAND_IN.sky,
    SCENE_STAND_IN.ground,
    SCENE_STAND_IN.intensity,
  );
  light.position.set(0, 0, 1);
  return light;
}

/**
 * A part's material as every drawing of the model makes it (`SCENE_LOOK.material` in `color`),
 * with `SCENE_STAND_IN.sheen` as its emissive when the scene is lit by the stand-in.
 */
export function partMaterial(color: string, standIn: boolean): MeshStandardMaterial {
  const material = new MeshStandardMaterial({ color: new Color(color), ...SCENE_LOOK.material });
  if (standIn) material.emissive.setScalar(SCENE_STAND_IN.sheen);
  return material;
}

/** A part's mesh as every drawing of the model uploads it: positions and triangle indices. */
export function partGeometry(positions: Float32Array, indices: Uint32Array): BufferGeometry {
  const geometry = new BufferGeometry();
  geometry.setAttribute("position", new BufferAttribute(positions, 3));
  geometry.setIndex(new BufferAttribute(indices, 1));
  geometry.computeBoundingSphere();
  return geometry;
}

/**
 * A part placed by its instance transforms (column-major 4 × 4): a `Mesh` for one, an
 * `InstancedMesh` (one draw call, GPU buffers of its own to dispose) for several, none for none.
 */
export function partObject(
  geometry: BufferGeometry,
  material: MeshStandardMaterial,
  instances: readonly ArrayLike<number>[],
): Mesh | InstancedMesh | null {
  if (instances.length === 1) {
    const mesh = new Mesh(geometry, material);
    mesh.matrixAutoUpdate = false;
    mesh.matrix.fromArray(instances[0]);
    return mesh;
  }
  if (instances.length === 0) return null;
  const mesh = new InstancedMesh(geometry, material, instances.length);
  const m = new Matrix4();
  instances.forEach((t, i) => mesh.setMatrixAt(i, m.fromArray(t)));
  mesh.instanceMatrix.needsUpdate = true;
  mesh.computeBoundingSphere();
  return mesh;
}

/** The light `environment: "auto"` settles on for `renderer`: the stand-in on a software rasterizer. */
export function autoLighting(renderer: WebGLRenderer): SceneLighting {
  return isSoftwareRenderer(rendererName(renderer.getContext())) ? "stand-in" : "map";
}

/** `SCENE_LOOK`'s room environment prefiltered for `renderer` (a GPU-only texture: dispose it). */
export function buildEnvironmentMap(renderer: WebGLRenderer): Texture {
  const pmrem = new PMREMGenerator(renderer);
  const room = new RoomEnvironment();
  const texture = pmrem.fromScene(room, SCENE_LOOK.environmentBlur).texture;
  room.dispose();
  pmrem.dispose();
  return texture;
}

/**
 * Lights `scene` for `renderer` as a view settles (`environment: "auto"`): the stand-in on a
 * software rasterizer (its materials then take `SCENE_STAND_IN.sheen`), else the environment map,
 * returned for the caller to dispose. Off-screen drawings that must look like the view use it
 * (the cart snapshot, the slider floor page).
 */
export function lightAsTheView(
  renderer: WebGLRenderer,
  scene: Scene,
): { standIn: boolean; environment?: Texture } {
  if (autoLighting(renderer) === "stand-in") {
    scene.add(standInLight());
    return { standIn: true };
  }
  const environment = buildEnvironmentMap(renderer);
  scene.environment = environment;
  scene.environmentIntensity = SCENE_LOOK.environmentIntensity;
  return { standIn: false, environment };
}

/** Tone mappings a view may use (`SceneViewOptions.toneMapping`). */
export type SceneToneMapping = "neutral" | "aces" | "agx";

const TONE_MAPPINGS: Record<SceneToneMapping, ToneMapping> = {
  neutral: NeutralToneMapping,
  aces: ACESFilmicToneMapping,
  agx: AgXToneMapping,
};

/**
 * How a scene is lit and shaded, shared with the cart snapshot (`snapshot.ts`) so a snapshot
 * looks like the view: the environment's blur and intensity, the key light, the parts' material.
 */
export const SCENE_LOOK = {
  environmentBlur: 0.04,
  environmentIntensity: 0.55,
  keyLight: { intensity: 0.7, direction: [1, -1.5, 2] as const },
  material: { roughness: 0.55, metalness: 0.05, flatShading: true },
} as const;

interface HeldGeometry {
  geometry: BufferGeometry;
  /** Scenes on screen (0 or 1 here, but counted so a future cross-fade stays correct). */
  refs: number;
}

/** Options of a `SceneView`. */
export interface SceneViewOptions {
  /** Background color (default a light grey). */
  background?: string;
  /** Device pixel ratio cap (default 2). */
  maxPixelRatio?: number;
  /** Tone mapping (default `neutral`: base colours kept as the DAG gives them). */
  toneMapping?: SceneToneMapping;
  /** Called with `true` when the WebGL context is lost, `false` once it is restored and drawn. */
  onContextChange?: (lost: boolean) => void;
  /** Listen for the view keys on `container` (default true; the page makes it focusable). */
  keyboard?: boolean;
  /**
   * Image-based light: `auto` (default) builds the environment map after the first model unless
   * the context draws with a software rasterizer, where the stand-in light stays; `map` always
   * builds it; `stand-in` never does.
   */
  environment?: "auto" | "map" | "stand-in";
}

/** The light a view draws with for good: the environment map, or the stand-in hemisphere. */
export type SceneLighting = "map" | "stand-in";

/**
 * A three.js view of rendered scenes inside `container`.
 *
 * @example
 * ```ts
 * const view = new SceneView(document.getElementById("viewer")!);
 * view.show(result); // fits the camera on the first scene
 * view.dispose();
 * ```
 */
export class SceneView {
  /** The canvas three.js draws into. */
  readonly canvas: HTMLCanvasElement;
  readonly #renderer: WebGLRenderer;
  readonly #scene = new Scene();
  readonly #camera = new PerspectiveCamera(35, 1, 0.1, 10_000);
  readonly #controls: OrbitControls;
  readonly #container: HTMLElement;
  readonly #geometries = new Map<string, HeldGeometry>();
  readonly #materials = new Map<string, MeshStandardMaterial>();
  readonly #resize: ResizeObserver;
  readonly #onContextChange: ((lost: boolean) => void) | undefined;
  readonly #keyboard: boolean;
  #group: Group | undefined;
  /** The scene on screen (Home and `fit()` fit its bounding box). */
  #shown: RenderResult | undefined;
  #groupHashes: string[] = [];
  /** The bounding sphere the camera was last fitted to (undefined before the first fit). */
  #fitted: BoundingSphere | undefined;
  /** The shopper orbited, panned or zoomed since the last fit. */
  #userMoved = false;
  #environment: Texture | undefined;
  /** Lights the scene until the environment map is built (`prepare()`), then leaves it. */
  #standIn: HemisphereLight | undefined;
  /** What the view lights with once its first model is drawn (`environment` option). */
  readonly #lighting: SceneLighting;
  #contextLost = false;
  #framesDrawn = 0;
  /** This view's number on the page (`FIRST_MODEL_MARKS` detail). */
  readonly #number = ++viewsMade;
  /** Where the first scene is on its way to the screen: none yet, handed over, drawn. */
  #firstModel: "none" | "shown" | "drawn" = "none";
  #frame = 0;
  #disposed = false;

  /** Creates the canvas inside `container` and starts observing its size. */
  constructor(container: HTMLElement, options: SceneViewOptions = {}) {
    this.#container = container;
    // preserveDrawingBuffer keeps the last frame readable (screenshots, pixel checks).
    // The canvas gets the view's size before its context exists: each later width or height
    // change reallocates the drawing buffer (three.js sets the two apart, so a resize from the
    // default 300 × 150 made two), which a software rasterizer pays in waits on the GPU process.
    const ratio = Math.min(globalThis.devicePixelRatio ?? 1, options.maxPixelRatio ?? 2);
    const [width, height] = sizeOf(container);
    const canvas = document.createElement("canvas");
    canvas.style.display = "block"; // as three.js makes its own
    canvas.width = Math.floor(width * ratio);
    canvas.height = Math.floor(height * ratio);
    this.#renderer = new WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    this.#renderer.setDrawingBufferSize(width, height, ratio);
    this.#renderer.outputColorSpace = SRGBColorSpace;
    this.#renderer.toneMapping = TONE_MAPPINGS[options.toneMapping ?? "neutral"];
    this.#renderer.toneMappingExposure = 1;
    this.#onContextChange = options.onContextChange;
    const environment = options.environment ?? "auto";
    this.#lighting = environment === "auto" ? autoLighting(this.#renderer) : environment;
    this.canvas = this.#renderer.domElement;
    this.canvas.setAttribute("data-viewer-canvas", "");
    this.canvas.addEventListener("webglcontextlost", this.#lost);
    this.canvas.addEventListener("webglcontextrestored", this.#restored);
    container.appendChild(this.canvas);
    this.#scene.background = new Color(options.background ?? "#eef1f5");
    // The environment map is built by `prepare()`: by default once the first model has been
    // presented, which until then is lit by a stand-in of about the same light.
    this.#standIn = standInLight();
    this.#scene.add(this.#standIn);
    this.#scene.environmentIntensity = SCENE_LOOK.environmentIntensity;
    this.#camera.up.set(0, 0, 1);
    this.#camera.position.set(200, -260, 180);
    // The environment lights every side; one key light from the viewer's upper left gives the
    // faces of a flat-shaded part distinct values.
    const key = new DirectionalLight(0xffffff, SCENE_LOOK.keyLight.intensity);
    key.position.set(...SCENE_LOOK.keyLight.direction);
    this.#scene.add(key);
    this.#controls = new OrbitControls(this.#camera, this.canvas);
    this.#controls.enableDamping = false;
    this.#controls.addEventListener("change", () => this.requestRender());
    // "start" fires on a pointer drag, a wheel zoom or a key pan — the shopper's own moves.
    this.#controls.addEventListener("start", () => (this.#userMoved = true));
    this.#keyboard = options.keyboard ?? true;
    if (this.#keyboard) container.addEventListener("keydown", this.#onKey);
    this.#resize = new ResizeObserver(() => this.#fitSize());
    this.#resize.observe(container);
    this.#fitSize();
  }

  /** How many geometries three.js holds (`renderer.info.memory.geometries`). */
  get geometryCount(): number {
    return this.#renderer.info.memory.geometries;
  }

  /** How many geometries this view holds by mesh hash. */
  get heldMeshes(): number {
    return this.#geometries.size;
  }

  /** The camera's distance from the point it orbits (tests read it after a refit). */
  get cameraDistance(): number {
    return this.#camera.position.distanceTo(this.#controls.target);
  }

  /** The camera's position (tests check that a key moved it). */
  get cameraPosition(): [number, number, number] {
    return this.#camera.position.toArray() as [number, number, number];
  }

  /** Sets the background (a theme's `--cad-stage`; any colour three.js reads). */
  setBackground(color: string): void {
    (this.#scene.background as Color).setStyle(color);
    this.requestRender();
  }

  /**
   * Orbits the camera around its target: `azimuth` radians around the up (Z) axis, `polar`
   * radians towards (negative) or away from (positive) the top, stopping short of the poles.
   */
  orbit(azimuth: number, polar: number): void {
    const target = this.#controls.target;
    const offset = this.#camera.position.clone().sub(target);
    const up = new Vector3(0, 0, 1);
    offset.applyAxisAngle(up, azimuth);
    if (polar) {
      const current = offset.angleTo(up);
      const next = Math.min(Math.max(current + polar, 0.05), Math.PI - 0.05);
      const axis = new Vector3().crossVectors(up, offset).normalize();
      if (axis.lengthSq() > 0) offset.applyAxisAngle(axis, next - current);
    }
    this.#camera.position.copy(target).add(offset);
    this.#camera.lookAt(target);
    this.#userMoved = true;
    this.#controls.update();
    this.requestRender();
  }

  /** Moves the camera `factor` times its distance from the target (< 1 zooms in). */
  zoom(factor: number): void {
    const target = this.#controls.target;
    const offset = this.#camera.position.clone().sub(target);
    const radius = this.#fitted?.radius ?? offset.length();
    const length = Math.min(Math.max(offset.length() * factor, radius * 0.2), radius * 40);
    offset.setLength(length);
    this.#camera.position.copy(target).add(offset);
    this.#userMoved = true;
    this.#controls.update();
    this.requestRender();
  }

  /** Runs the view action of `key` (`view_keys.ts`); false when the key is not the view's. */
  handleKey(key: string): boolean {
    const action = viewKeyAction(key);
    if (!action) return false;
    if (action.type === "orbit") this.orbit(action.azimuth, action.polar);
    else if (action.type === "zoom") this.zoom(action.factor);
    else this.fit();
    return true;
  }

  /** Whether the shopper moved the camera since the last fit (then big changes do not refit). */
  get userMoved(): boolean {
    return this.#userMoved;
  }

  /** Whether the WebGL context is lost (nothing draws until the browser restores it). */
  get contextLost(): boolean {
    return this.#contextLost;
  }

  /** Frames drawn since the view was made (tests check a restored context draws again). */
  get framesDrawn(): number {
    return this.#framesDrawn;
  }

  /** The colors of the scene shown, part by part (tests and benchmarks read an instant color). */
  get partColors(): string[] {
    return this.#shown?.parts.map((part) => part.color) ?? [];
  }

  /**
   * Builds the environment map now, if not built yet, replaces the stand-in light with it and
   * draws again. The view calls it itself once its first model has been presented when its
   * lighting is `map`: the map costs the GPU more than anything else before the first model
   * (seconds with a software GL, which holds the page meanwhile), so the model is drawn first
   * under the stand-in. Called by the page, it builds the map whatever the lighting.
   */
  prepare(): void {
    if (this.#disposed || this.#environment || this.#contextLost) return;
    this.#buildEnvironment();
    if (this.#standIn) {
      this.#scene.remove(this.#standIn);
      this.#standIn.dispose();
      this.#standIn = undefined;
      for (const material of this.#materials.values()) material.emissive.setScalar(0);
    }
    this.requestRender();
  }

  /** Whether the environment map is built (`prepare()`). */
  get prepared(): boolean {
    return this.#environment !== undefined;
  }

  /**
   * What the view lights with after its first model: `map` (it builds the environment map by
   * itself) or `stand-in` (it keeps the hemisphere light: a software rasterizer, or asked for).
   */
  get lighting(): SceneLighting {
    return this.#lighting;
  }

  /**
   * Replaces the drawn scene with `result`; fits the camera the first time, when `fit`, or when
   * the bounds changed a lot and the shopper has not moved the camera since the last fit.
   */
  show(result: RenderResult, options: { fit?: boolean } = {}): void {
    if (this.#disposed) return;
    // The answer to a previewed color pick: the picture on screen is already this one.
    if (this.#shown && !options.fit && drawsTheSame(this.#shown, result)) {
      this.#shown = result;
      return;
    }
    if (this.#firstModel === "none") {
      this.#firstModel = "shown";
      mark(FIRST_MODEL_MARKS.scene, this.#number);
    }
    const group = new Group();
    const hashes: string[] = [];
    for (const part of result.parts) {
      const geometry = this.#acquire(part.mesh.hash, part.mesh.positions, part.mesh.indices);
      hashes.push(part.mesh.hash);
      const object = partObject(geometry, this.#material(part.color), part.instances);
      if (object) {
        object.name = part.name;
        group.add(object);
      }
    }
    this.#shown = result;
    const old = this.#group;
    const oldHashes = this.#groupHashes;
    this.#group = group;
    this.#groupHashes = hashes;
    this.#scene.add(group);
    if (old) {
      this.#scene.remove(old);
      // InstancedMesh holds GPU buffers of its own (instance matrices).
      old.traverse((o) => (o as InstancedMesh).isInstancedMesh && (o as InstancedMesh).dispose());
    }
    for (const hash of oldHashes) this.#release(hash);
    const next = sphereOfBox(result.bbox);
    const due = shouldRefit({
      fitted: this.#fitted,
      next,
      userMoved: this.#userMoved,
      force: options.fit,
    });
    if (due) this.fit(result);
    this.requestRender();
  }

  /**
   * Points the camera at the scene's bounding box from a three-quarter view, and forgets that
   * the shopper moved it (later big changes refit again).
   */
  fit(result: RenderResult | undefined = this.#shown): void {
    const box = new Box3();
    if (result) {
      box.min.fromArray(result.bbox.min);
      box.max.fromArray(result.bbox.max);
    } else if (this.#group) {
      box.setFromObject(this.#group);
    }
    if (box.isEmpty()) return;
    const sphere = box.getBoundingSphere(new Sphere());
    const distance = fitDistance(sphere.radius, this.#camera.fov, this.#camera.aspect);
    this.#fitted = { center: sphere.center.toArray(), radius: sphere.radius };
    this.#userMoved = false;
    const dir = new Vector3(0.9, -1.2, 0.85).normalize();
    this.#camera.position.copy(sphere.center).addScaledVector(dir, distance);
    this.#camera.near = Math.max(distance / 1000, 0.01);
    this.#camera.far = distance * 100;
    this.#camera.updateProjectionMatrix();
    this.#controls.target.copy(sphere.center);
    this.#controls.update();
    this.requestRender();
  }

  /** Draws on the next animation frame (several requests in one frame draw once). */
  requestRender(): void {
    if (this.#disposed || this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.renderNow();
    });
  }

  /**
   * Draws now (nothing while the context is lost: it draws again once restored). Nothing either
   * before the first scene: the canvas stays transparent over the stage's own background.
   */
  renderNow(): void {
    if (this.#disposed || this.#contextLost || !this.#shown) return;
    this.#renderer.render(this.#scene, this.#camera);
    this.#framesDrawn++;
    if (this.#firstModel === "shown") {
      this.#firstModel = "drawn";
      // GL calls return before the GPU has run them: the model is on screen once the frame that
      // drew it has been presented, i.e. when the next frame begins.
      const view = this.#number;
      requestAnimationFrame(() => {
        mark(FIRST_MODEL_MARKS.model, view);
        // After this frame's tasks (input, the page's own work), not inside the frame.
        if (this.#lighting === "map") setTimeout(() => this.prepare(), 0);
      });
    }
  }

  /** Frees every GPU resource and removes the canvas. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#frame) cancelAnimationFrame(this.#frame);
    this.canvas.removeEventListener("webglcontextlost", this.#lost);
    this.canvas.removeEventListener("webglcontextrestored", this.#restored);
    this.#resize.disconnect();
    if (this.#keyboard) this.#container.removeEventListener("keydown", this.#onKey);
    this.#controls.dispose();
    if (this.#group) {
      this.#scene.remove(this.#group);
      this.#group.traverse((o) =>
        (o as InstancedMesh).isInstancedMesh && (o as InstancedMesh).dispose()
      );
    }
    for (const held of this.#geometries.values()) held.geometry.dispose();
    this.#geometries.clear();
    for (const material of this.#materials.values()) material.dispose();
    this.#materials.clear();
    this.#environment?.dispose();
    this.#renderer.dispose();
    this.canvas.remove();
  }

  /** The room environment, prefiltered for PBR materials (a GPU-only texture). */
  #buildEnvironment(): void {
    this.#environment?.dispose();
    this.#environment = buildEnvironmentMap(this.#renderer);
    this.#scene.environment = this.#environment;
  }

  readonly #onKey = (event: KeyboardEvent): void => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.target !== this.#container) return;
    if (this.handleKey(event.key)) event.preventDefault();
  };

  readonly #lost = (event: Event): void => {
    // Without preventDefault the browser never restores the context.
    event.preventDefault();
    if (this.#frame) cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#contextLost = true;
    this.#onContextChange?.(true);
  };

  readonly #restored = (): void => {
    if (this.#disposed) return;
    // three.js (listening first) has re-created its GL state; buffers and programs upload again
    // from the CPU copies on the next draw, but a render target's pixels lived only on the GPU.
    this.#contextLost = false;
    if (this.#environment) this.#buildEnvironment();
    else if (this.#firstModel === "drawn" && this.#lighting === "map") {
      this.prepare(); // lost before its map was built
    }
    this.#fitSize();
    this.renderNow();
    this.#onContextChange?.(false);
  };

  #acquire(hash: string, positions: Float32Array, indices: Uint32Array): BufferGeometry {
    const held = this.#geometries.get(hash);
    if (held) {
      held.refs++;
      return held.geometry;
    }
    const geometry = partGeometry(positions, indices);
    this.#geometries.set(hash, { geometry, refs: 1 });
    return geometry;
  }

  #release(hash: string): void {
    const held = this.#geometries.get(hash);
    if (!held) return;
    held.refs--;
    if (held.refs <= 0) {
      held.geometry.dispose();
      this.#geometries.delete(hash);
    }
  }

  #material(color: string): MeshStandardMaterial {
    let material = this.#materials.get(color);
    if (!material) {
      material = partMaterial(color, this.#standIn !== undefined);
      // Bounded in practice by the schema's colors; cap it anyway.
      if (this.#materials.size >= 64) {
        const [oldest, m] = this.#materials.entries().next().value!;
        if (!this.#inUse(m)) {
          m.dispose();
          this.#materials.delete(oldest);
        }
      }
      this.#materials.set(color, material);
    }
    return material;
  }

  #inUse(material: MeshStandardMaterial): boolean {
    let used = false;
    this.#group?.traverse((o) => {
      if ((o as Mesh).material === material) used = true;
    });
    return used;
  }

  #fitSize(): void {
    const [width, height] = sizeOf(this.#container);
    // Unchanged sizes leave the buffer alone (the observer's first call, layout that moved nothing).
    const ratio = this.#renderer.getPixelRatio();
    if (
      this.canvas.width !== Math.floor(width * ratio) ||
      this.canvas.height !== Math.floor(height * ratio)
    ) this.#renderer.setSize(width, height, false);
    this.canvas.style.width = "100%";
    this.canvas.style.height = "100%";
    this.#camera.aspect = width / height;
    this.#camera.updateProjectionMatrix();
    this.requestRender();
  }
}

/** The CSS pixel size a view fills in `container` (at least 1 × 1). */
function sizeOf(container: HTMLElement): [number, number] {
  return [Math.max(1, container.clientWidth), Math.max(1, container.clientHeight)];
}

/** A User Timing mark, where the host has them (never throws: timing must not break a view). */
function mark(name: string, view: number): void {
  try {
    globalThis.performance?.mark?.(name, { detail: { view } });
  } catch {
    // no User Timing here
  }
}
