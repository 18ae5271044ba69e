/**
 * Every example's exports checked by tools no one here wrote (docs/exports.md, Checks):
 * - STL: `admesh` (Debian) finds one closed part per solid — 0 facets with disconnected edges, 0
 *   degenerate facets, nothing to fix (edges, facets, normals) — and the volume it reports agrees
 *   with the kernel's; the volume of the file's own float32 facets, summed in double precision,
 *   is within 1e-6 relative of the kernel's exact volume (admesh sums in single precision, so its
 *   figure is only held to 1e-5);
 * - GLB: the Khronos glTF validator (`gltf-validator`) reports 0 errors, and three.js's
 *   `GLTFLoader` loads it with the kernel's triangle count and its bounds (metres, +Y up);
 * - 3MF: three.js's `3MFLoader` (with linkedom's DOMParser) loads it with the kernel's volume
 *   (1e-6 relative) and bounds; PrusaSlicer's CLI (Debian's `prusa-slicer --info`) reads every
 *   build item as a manifold object, with the kernel's facet count, bounds (1e-3 mm) and volume
 *   (1e-5 relative: it reports single-precision figures).
 * In CI admesh and PrusaSlicer are installed by tests/_helpers/ensure_env.ts; without them (a
 * machine where apt is not available) their steps say so and are skipped.
 */
import assert from "node:assert/strict";
import validator from "gltf-validator";
import { DOMParser } from "linkedom";
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { ThreeMFLoader } from "three/examples/jsm/loaders/3MFLoader.js";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { evaluateDagExact } from "@/lib/kernel/evaluate.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { buildExportFile } from "@/lib/kernel/export/export_file.ts";
import type { ExportModel } from "@/lib/kernel/export/export_model.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { cadparam } from "../design/_python.ts";

const PROJECTS = new URL("../../examples/projects/", import.meta.url);

const slugs: string[] = [];
for await (const entry of Deno.readDir(PROJECTS)) {
  if (entry.isDirectory) slugs.push(entry.name);
}
slugs.sort();

const admesh = await hasAdmesh();
if (!admesh) {
  // In CI a missing admesh fails the STL steps (ensure_env installs it); elsewhere they skip.
  console.warn(
    "export_tools_test: admesh is not installed (apt-get install -y admesh): STL skipped",
  );
}

const slicer = await hasTool("prusa-slicer", "--help");
if (!slicer) {
  console.warn(
    "export_tools_test: prusa-slicer is not installed (apt-get install -y prusa-slicer): skipped",
  );
}

function hasAdmesh(): Promise<boolean> {
  return hasTool("admesh", "--version");
}

async function hasTool(command: string, arg: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(command, { args: [arg], stdout: "null", stderr: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** One object block of `prusa-slicer --info`: its `key = value` lines. */
type SlicerObject = Record<string, string>;

/** The objects PrusaSlicer reports for a file, one per build item. */
async function slicerInfo(path: string): Promise<SlicerObject[]> {
  const out = await new Deno.Command("prusa-slicer", {
    args: ["--info", path],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success, "prusa-slicer --info failed");
  const objects: SlicerObject[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (/^\[.*\]$/.test(line.trim())) objects.push({});
    const m = /^\s*([a-z_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m && objects.length) objects[objects.length - 1][m[1]] = m[2];
  }
  return objects;
}

/** An example at its defaults: a template's instance, or what a python-mode design.py emits. */
async function exampleDag(slug: string): Promise<Dag> {
  const dir = new URL(`${slug}/`, PROJECTS);
  const schema = validateParameterSchema(
    JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
  );
  try {
    const template = validateDag(
      JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir))),
    );
    return substitute(template, schema, {});
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    const design = new URL("design.py", dir).pathname;
    return validateDag(JSON.parse(await cadparam(["run", design, "--values", "{}"])));
  }
}

async function example(slug: string): Promise<{ scene: Scene; model: ExportModel }> {
  const { scene, exact } = await evaluateDagExact(await exampleDag(slug));
  return { scene, model: { title: slug, parts: scene.parts, meshes: exact } };
}

/** The first number after `label` in admesh's report (the "Original" column where there are two). */
function admeshFigure(report: string, label: string): number {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`${escaped}\\s*[:=]\\s*(-?[0-9.]+)`).exec(report);
  assert.ok(m, `admesh reported no "${label}":\n${report}`);
  return Number(m[1]);
}

/** Volume of a binary STL's facets, summed in double precision. */
function stlVolume(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(80, true);
  let sum = 0;
  for (let i = 0, at = 84; i < n; i++, at += 50) {
    const v = (k: number) => view.getFloat32(at + 12 + k * 4, true);
    sum += signedTet(v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8));
  }
  return sum;
}

function signedTet(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
): number {
  return (ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)) / 6;
}

/** Volume of every mesh under `root`, placed by its world matrix. */
function objectVolume(root: THREE.Object3D): number {
  root.updateMatrixWorld(true);
  let sum = 0;
  const a = new THREE.Vector3(), b = new THREE.Vector3(), c = new THREE.Vector3();
  root.traverse((object) => {
    const mesh = object as THREE.Mesh;
    if (!mesh.isMesh) return;
    const position = mesh.geometry.getAttribute("position");
    const index = mesh.geometry.getIndex();
    const count = index ? index.count : position.count;
    const at = (i: number) => (index ? index.getX(i) : i);
    for (let i = 0; i < count; i += 3) {
      a.fromBufferAttribute(position, at(i)).applyMatrix4(mesh.matrixWorld);
      b.fromBufferAttribute(position, at(i + 1)).applyMatrix4(mesh.matrixWorld);
      c.fromBufferAttribute(position, at(i + 2)).applyMatrix4(mesh.matrixWorld);
      sum += signedTet(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z);
    }
  });
  return sum;
}

function triangleCount(root: THREE.Object3D): number {
  let n = 0;
  root.traverse((object) => {
    const mesh = object as THREE.Mesh;
    if (!mesh.isMesh) return;
    const index = mesh.geometry.getIndex();
    n += (index ? index.count : mesh.geometry.getAttribute("position").count) / 3;
  });
  return n;
}

function near(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${what}: ${actual} is not within ${tolerance} of ${expected}`,
  );
}

function assertBox(box: THREE.Box3, min: number[], max: number[], tol: number, what: string) {
  for (let k = 0; k < 3; k++) {
    near(box.min.getComponent(k), min[k], tol, `${what} min[${k}]`);
    near(box.max.getComponent(k), max[k], tol, `${what} max[${k}]`);
  }
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

for (const slug of slugs) {
  Deno.test(`exports - ${slug}: STL, GLB and 3MF pass admesh, the Khronos validator, three.js's loaders and PrusaSlicer`, async (t) => {
    const { scene, model } = await example(slug);
    const { min, max } = scene.bbox;

    await t.step({
      name: "STL: admesh finds closed, clean parts; the volume is the kernel's",
      ignore: !admesh && !Deno.env.get("CI"),
      fn: async () => {
        const stl = buildExportFile("stl", model);
        near(stlVolume(stl), scene.volume, 1e-6 * scene.volume, "STL volume (double)");
        const path = await Deno.makeTempFile({ suffix: ".stl" });
        try {
          await Deno.writeFile(path, stl);
          const out = await new Deno.Command("admesh", { args: [path], stdout: "piped" }).output();
          assert.ok(out.success, "admesh failed");
          const report = new TextDecoder().decode(out.stdout);
          assert.equal(admeshFigure(report, "Number of facets"), scene.triangles);
          for (
            const label of [
              "Facets with 1 disconnected edge",
              "Facets with 2 disconnected edges",
              "Facets with 3 disconnected edges",
              "Total disconnected facets",
              "Degenerate facets",
              "Edges fixed",
              "Facets removed",
              "Facets added",
              "Facets reversed",
              "Backwards edges",
              "Normals fixed",
            ]
          ) assert.equal(admeshFigure(report, label), 0, `${label}\n${report}`);
          near(admeshFigure(report, "Volume"), scene.volume, 1e-5 * scene.volume, "admesh volume");
          near(admeshFigure(report, "Min X"), min[0], 1e-3, "admesh Min X");
          near(admeshFigure(report, "Max Z"), max[2], 1e-3, "admesh Max Z");
        } finally {
          await Deno.remove(path);
        }
      },
    });

    await t.step(
      "GLB: 0 errors from the Khronos validator; GLTFLoader draws every triangle",
      async () => {
        const glb = buildExportFile("glb", model);
        const report = await validator.validateBytes(glb, { maxIssues: 50 });
        assert.equal(report.issues.numErrors, 0, JSON.stringify(report.issues.messages, null, 1));
        assert.ok(report.info.extensionsUsed?.includes("EXT_mesh_manifold"));
        const gltf = await new GLTFLoader().parseAsync(arrayBufferOf(glb), "");
        assert.equal(triangleCount(gltf.scene), scene.triangles);
        // Millimetres +Z up in the kernel; metres +Y up in glTF: (x, y, z) → (x, z, −y) / 1000.
        const box = new THREE.Box3().setFromObject(gltf.scene);
        assertBox(
          box,
          [min[0] / 1000, min[2] / 1000, -max[1] / 1000],
          [max[0] / 1000, max[2] / 1000, -min[1] / 1000],
          1e-6,
          "GLB bounds",
        );
        near(objectVolume(gltf.scene) * 1e9, scene.volume, 1e-6 * scene.volume, "GLB volume");
      },
    );

    await t.step("3MF: 3MFLoader reads the kernel's volume and bounds", () => {
      const file = buildExportFile("3mf", model);
      const group = new ThreeMFLoader().parse(arrayBufferOf(file));
      assert.equal(triangleCount(group), scene.triangles);
      near(objectVolume(group), scene.volume, 1e-6 * scene.volume, "3MF volume");
      assertBox(new THREE.Box3().setFromObject(group), min, max, 1e-3, "3MF bounds");
    });

    await t.step({
      name: "3MF: PrusaSlicer reads manifold objects with the kernel's facets, bounds and volume",
      ignore: !slicer && !Deno.env.get("CI"),
      fn: async () => {
        const path = await Deno.makeTempFile({ suffix: ".3mf" });
        try {
          await Deno.writeFile(path, buildExportFile("3mf", model));
          const objects = await slicerInfo(path);
          assert.ok(objects.length >= scene.parts.length, `${objects.length} objects`);
          let facets = 0, volume = 0;
          const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
          for (const o of objects) {
            assert.equal(o.manifold, "yes", JSON.stringify(o));
            facets += Number(o.number_of_facets);
            volume += Number(o.volume);
            ["x", "y", "z"].forEach((axis, k) => {
              lo[k] = Math.min(lo[k], Number(o[`min_${axis}`]));
              hi[k] = Math.max(hi[k], Number(o[`max_${axis}`]));
            });
          }
          assert.equal(facets, scene.triangles);
          near(volume, scene.volume, 1e-5 * scene.volume, "PrusaSlicer volume");
          for (let k = 0; k < 3; k++) {
            near(lo[k], min[k], 1e-3, `PrusaSlicer min[${k}]`);
            near(hi[k], max[k], 1e-3, `PrusaSlicer max[${k}]`);
          }
        } finally {
          await Deno.remove(path);
        }
      },
    });
  });
}

// 3MFLoader parses XML with the browser's DOMParser; linkedom's stands in for it here.
(globalThis as unknown as { DOMParser: unknown }).DOMParser = DOMParser;
