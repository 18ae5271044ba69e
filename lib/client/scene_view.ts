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
 *   nothing. Z is up, as in the kernel's coordinates.
 *
 * Runs in browsers: no Deno APIs here.
 */

import {
  AmbientLight,
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
  PerspectiveCamera,
  Scene,
  Sphere,
  Vector3,
  WebGLRenderer,
} from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import type { RenderResult } from "./render_result.ts";

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
}

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
  #group: Group | undefined;
  #groupHashes: string[] = [];
  #fitted = false;
  #frame = 0;
  #disposed = false;

  /** Creates the canvas inside `container` and starts observing its size. */
  constructor(container: HTMLElement, options: SceneViewOptions = {}) {
    this.#container = container;
    // preserveDrawingBuffer keeps the last frame readable (screenshots, pixel checks).
    this.#renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.#renderer.setPixelRatio(
      Math.min(globalThis.devicePixelRatio ?? 1, options.maxPixelRatio ?? 2),
    );
    this.canvas = this.#renderer.domElement;
    this.canvas.setAttribute("data-viewer-canvas", "");
    container.appendChild(this.canvas);
    this.#scene.background = new Color(options.background ?? "#eef1f5");
    this.#camera.up.set(0, 0, 1);
    this.#camera.position.set(200, -260, 180);
    this.#scene.add(new HemisphereLight(0xffffff, 0x8a8f99, 1.4));
    this.#scene.add(new AmbientLight(0xffffff, 0.25));
    const key = new DirectionalLight(0xffffff, 1.6);
    key.position.set(1, -1.5, 2);
    const rim = new DirectionalLight(0xffffff, 0.6);
    rim.position.set(-1.5, 1, 0.5);
    this.#scene.add(key, rim);
    this.#controls = new OrbitControls(this.#camera, this.canvas);
    this.#controls.enableDamping = false;
    this.#controls.addEventListener("change", () => this.requestRender());
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

  /** Replaces the drawn scene with `result`; fits the camera the first time (or when `fit`). */
  show(result: RenderResult, options: { fit?: boolean } = {}): void {
    if (this.#disposed) return;
    const group = new Group();
    const hashes: string[] = [];
    for (const part of result.parts) {
      const geometry = this.#acquire(part.mesh.hash, part.mesh.positions, part.mesh.indices);
      hashes.push(part.mesh.hash);
      const material = this.#material(part.color);
      const count = part.instances.length;
      if (count === 1) {
        const mesh = new Mesh(geometry, material);
        mesh.matrixAutoUpdate = false;
        mesh.matrix.fromArray(part.instances[0]);
        mesh.name = part.name;
        group.add(mesh);
      } else if (count > 1) {
        const mesh = new InstancedMesh(geometry, material, count);
        const m = new Matrix4();
        part.instances.forEach((t, i) => mesh.setMatrixAt(i, m.fromArray(t)));
        mesh.instanceMatrix.needsUpdate = true;
        mesh.computeBoundingSphere();
        mesh.name = part.name;
        group.add(mesh);
      }
    }
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
    if (!this.#fitted || options.fit) {
      this.fit(result);
      this.#fitted = true;
    }
    this.requestRender();
  }

  /** Points the camera at the scene's bounding box from a three-quarter view. */
  fit(result?: RenderResult): void {
    const box = new Box3();
    if (result) {
      box.min.fromArray(result.bbox.min);
      box.max.fromArray(result.bbox.max);
    } else if (this.#group) {
      box.setFromObject(this.#group);
    }
    if (box.isEmpty()) return;
    const sphere = box.getBoundingSphere(new Sphere());
    const radius = Math.max(sphere.radius, 1e-3);
    const fov = (this.#camera.fov * Math.PI) / 180;
    const aspect = Math.max(this.#camera.aspect, 0.3);
    const distance = radius / Math.sin(Math.min(fov, fov * aspect) / 2) * 1.08;
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

  /** Draws now. */
  renderNow(): void {
    if (this.#disposed) return;
    this.#renderer.render(this.#scene, this.#camera);
  }

  /** Frees every GPU resource and removes the canvas. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#frame) cancelAnimationFrame(this.#frame);
    this.#resize.disconnect();
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
    this.#renderer.dispose();
    this.canvas.remove();
  }

  #acquire(hash: string, positions: Float32Array, indices: Uint32Array): BufferGeometry {
    const held = this.#geometries.get(hash);
    if (held) {
      held.refs++;
      return held.geometry;
    }
    const geometry = new BufferGeometry();
    geometry.setAttribute("position", new BufferAttribute(positions, 3));
    geometry.setIndex(new BufferAttribute(indices, 1));
    geometry.computeBoundingSphere();
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
      material = new MeshStandardMaterial({
        color: new Color(color),
        roughness: 0.55,
        metalness: 0.05,
        flatShading: true,
      });
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
    const width = Math.max(1, this.#container.clientWidth);
    const height = Math.max(1, this.#container.clientHeight);
    this.#renderer.setSize(width, height, false);
    this.canvas.style.width = "100%";
    this.canvas.style.height = "100%";
    this.#camera.aspect = width / height;
    this.#camera.updateProjectionMatrix();
    this.requestRender();
  }
}
