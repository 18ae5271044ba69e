/**
 * The USDZ of "View in AR" (lib/client/usdz_export.ts) for every example at its defaults, made
 * from the meshes a browser holds (the kernel's wire form, decoded), then checked two ways:
 * structurally against the format (tests/client/_usdz_reader.ts: stored zip entries with 64-byte
 * aligned data, the root layer first, metres and +Y up, one mesh prim per part instance with
 * the part's triangles, its colour, the model standing on the origin at true size and enclosing
 * the kernel's volume) and by loading it with three.js's own `USDLoader`.
 */
import assert from "node:assert/strict";
import { Box3, type BufferGeometry, type Mesh, type Object3D, Vector3 } from "three";
import { USDLoader } from "three/examples/jsm/loaders/USDLoader.js";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { evaluateDagExact } from "@/lib/kernel/evaluate.ts";
import { decodeMesh, meshDecoderReady } from "@/lib/client/mesh_decode.ts";
import { buildUsdz, type UsdzInput, type UsdzPart } from "@/lib/client/usdz_export.ts";
import { cadparam, exampleSlugs, PROJECTS } from "../design/_python.ts";
import {
  applyRowMatrix,
  crc32,
  multiplyRowMatrices,
  readGeometryLayer,
  readRootLayer,
  readZipEntries,
} from "./_usdz_reader.ts";

/** An example's finished DAG at its defaults: the template's, or a python-mode design's run. */
async function defaultDag(slug: string): Promise<Dag> {
  const dir = new URL(`${slug}/`, PROJECTS);
  const schema = validateParameterSchema(
    JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
  );
  try {
    const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
    return substitute(template, schema, {});
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    return JSON.parse(await cadparam(["run", new URL("design.py", dir).pathname]));
  }
}

/** What the browser holds after rendering `dag`: decoded meshes in the scene's parts. */
async function browserScene(dag: Dag): Promise<{ scene: Scene; input: UsdzInput }> {
  await meshDecoderReady();
  const { scene } = await evaluateDagExact(dag);
  const parts: UsdzPart[] = scene.parts.map((p) => ({
    name: p.name,
    color: p.color,
    mesh: decodeMesh(p.mesh, scene.meshes[p.mesh]),
    instances: p.instances,
  }));
  return { scene, input: { parts, bbox: scene.bbox } };
}

/** sRGB `#rrggbb` → linear components, as three's `Color` holds them. */
function linearOf(hex: string): number[] {
  return [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  });
}

/** Signed volume of a triangle list (divergence theorem). */
function signedVolume(points: number[][], indices: number[]): number {
  let v = 0;
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [points[indices[t]], points[indices[t + 1]], points[indices[t + 2]]];
    v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
      a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
  }
  return v;
}

/** Checks a USDZ of `input` against the format and the scene; returns its figures. */
function checkUsdz(label: string, bytes: Uint8Array, input: UsdzInput, volumeMm3: number) {
  const entries = readZipEntries(bytes);
  assert.equal(entries[0].name, "model.usda", `${label}: the root layer is the first entry`);
  for (const e of entries) {
    assert.equal(e.method, 0, `${label}: ${e.name} is stored, not compressed`);
    assert.equal(e.dataOffset % 64, 0, `${label}: ${e.name}'s data is 64-byte aligned`);
    assert.equal(crc32(e.data), e.crc32, `${label}: ${e.name}'s CRC`);
    assert.match(e.name, /\.usda$/, `${label}: only text layers (no textures)`);
  }
  const layers = new Map(entries.map((e) => [e.name, new TextDecoder().decode(e.data)]));
  const root = readRootLayer(layers.get("model.usda")!);
  assert.equal(root.metersPerUnit, 1, `${label}: metersPerUnit`);
  assert.equal(root.upAxis, "Y", `${label}: upAxis`);
  assert.equal(root.defaultPrim, "Root", `${label}: defaultPrim`);

  const drawn = input.parts.filter((p) => p.mesh.indices.length > 0);
  const instances = drawn.flatMap((p) => p.instances.map(() => p));
  assert.equal(root.meshes.length, instances.length, `${label}: one mesh prim per part instance`);
  let volume = 0;
  let triangles = 0;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  root.meshes.forEach((prim, i) => {
    const part = instances[i];
    assert.equal(prim.name.replace(/_\d+$/, ""), part.name.replace(/[^A-Za-z0-9_]/g, ""));
    const colour = root.materials.get(prim.material);
    assert.ok(colour, `${label}: ${prim.name}'s material is defined`);
    linearOf(part.color).forEach((c, k) =>
      assert.ok(Math.abs(colour[k] - c) < 1e-6, `${label}: ${prim.name}'s colour`)
    );
    const layer = layers.get(prim.geometry);
    assert.ok(layer, `${label}: ${prim.geometry} is in the package`);
    const g = readGeometryLayer(layer);
    const faces = g.faceVertexCounts.length;
    assert.equal(faces, part.mesh.indices.length / 3, `${label}: ${prim.name}'s triangles`);
    assert.ok(g.faceVertexCounts.every((n) => n === 3), `${label}: triangles only`);
    assert.equal(g.faceVertexIndices.length, faces * 3);
    const count = g.points.length / 3;
    assert.ok(count <= faces * 3 && g.faceVertexIndices.every((v) => v >= 0 && v < count));
    assert.equal(g.normals.length, g.points.length, `${label}: a normal per point`);
    for (let n = 0; n < g.normals.length; n += 3) {
      const length = Math.hypot(g.normals[n], g.normals[n + 1], g.normals[n + 2]);
      assert.ok(Math.abs(length - 1) < 1e-5, `${label}: unit normals`);
    }
    const world = multiplyRowMatrices(prim.transform, root.rootTransform);
    const points: number[][] = [];
    for (let p = 0; p < g.points.length; p += 3) {
      const w = applyRowMatrix(world, g.points.slice(p, p + 3));
      points.push(w);
      for (let k = 0; k < 3; k++) {
        min[k] = Math.min(min[k], w[k]);
        max[k] = Math.max(max[k], w[k]);
      }
    }
    volume += signedVolume(points, g.faceVertexIndices);
    triangles += faces;
  });
  // Metres, +Y up: x stays x, y is the model's z, z is the model's −y.
  const b = input.bbox;
  const expectMin = [
    -(b.max[0] - b.min[0]) / 2000,
    0,
    -(b.max[1] - b.min[1]) / 2000,
  ];
  const expectMax = [(b.max[0] - b.min[0]) / 2000, (b.max[2] - b.min[2]) / 1000, -expectMin[2]];
  for (let k = 0; k < 3; k++) {
    assert.ok(Math.abs(min[k] - expectMin[k]) < 1e-5, `${label}: min[${k}] ${min[k]}`);
    assert.ok(Math.abs(max[k] - expectMax[k]) < 1e-5, `${label}: max[${k}] ${max[k]}`);
  }
  const relative = Math.abs(volume * 1e9 - volumeMm3) / volumeMm3;
  assert.ok(relative < 1e-3, `${label}: volume ${volume * 1e9} mm³ vs ${volumeMm3} (${relative})`);
  return { triangles, volume, layers: entries.length };
}

/** Meshes and triangles of what three.js's USDLoader makes of the file. */
function loadWithThree(bytes: Uint8Array): { meshes: number; triangles: number; size: Vector3 } {
  const group = new USDLoader().parse(bytes.slice().buffer) as Object3D;
  let meshes = 0;
  let triangles = 0;
  group.traverse((o) => {
    const mesh = o as Mesh;
    if (!mesh.isMesh) return;
    meshes++;
    const g = mesh.geometry as BufferGeometry;
    triangles += (g.index ? g.index.count : g.attributes.position.count) / 3;
  });
  group.updateMatrixWorld(true);
  return { meshes, triangles, size: new Box3().setFromObject(group).getSize(new Vector3()) };
}

Deno.test("usdz - every example's USDZ is a valid package at true size that three.js loads", async (t) => {
  const slugs = await exampleSlugs();
  assert.ok(slugs.length >= 7, "every example, python-mode ones too");
  for (const slug of slugs) {
    await t.step(slug, async () => {
      const { scene, input } = await browserScene(await defaultDag(slug));
      const bytes = await buildUsdz(input);
      const figures = checkUsdz(slug, bytes, input, scene.volume);
      assert.equal(figures.triangles, scene.triangles, `${slug}: every drawn triangle`);
      const loaded = loadWithThree(bytes);
      assert.equal(loaded.meshes, input.parts.reduce((n, p) => n + p.instances.length, 0));
      assert.equal(loaded.triangles, scene.triangles, `${slug}: USDLoader's triangles`);
      const b = scene.bbox;
      const expected = [b.max[0] - b.min[0], b.max[2] - b.min[2], b.max[1] - b.min[1]];
      [loaded.size.x, loaded.size.y, loaded.size.z].forEach((s, k) =>
        assert.ok(Math.abs(s * 1000 - expected[k]) < 0.01, `${slug}: USDLoader's size ${k}`)
      );
      console.log(
        `${slug}: ${bytes.length} B, ${figures.layers} layers, ${scene.triangles} triangles`,
      );
    });
  }
});

Deno.test("usdz - instances share one geometry layer; a mirrored instance is baked, not inside out", async () => {
  // A closed unit cube (mm), outward winding.
  const positions = new Float32Array([
    0,
    0,
    0,
    1,
    0,
    0,
    1,
    1,
    0,
    0,
    1,
    0,
    0,
    0,
    1,
    1,
    0,
    1,
    1,
    1,
    1,
    0,
    1,
    1,
  ].map((v) => v * 10));
  const indices = new Uint32Array([
    0,
    2,
    1,
    0,
    3,
    2,
    4,
    5,
    6,
    4,
    6,
    7,
    0,
    1,
    5,
    0,
    5,
    4,
    1,
    2,
    6,
    1,
    6,
    5,
    2,
    3,
    7,
    2,
    7,
    6,
    3,
    0,
    4,
    3,
    4,
    7,
  ]);
  const move = (x: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, 0, 1];
  const mirror = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -20, 0, 0, 1];
  const input: UsdzInput = {
    parts: [{
      name: "Cube part",
      color: "#3366cc",
      mesh: { hash: "cube", positions, indices },
      instances: [move(0), move(20), mirror],
    }],
    bbox: { min: [-30, 0, 0], max: [30, 10, 10] },
  };
  const bytes = await buildUsdz(input);
  const figures = checkUsdz("cubes", bytes, input, 3 * 1000);
  assert.equal(figures.layers, 3, "the root, one shared layer for two instances, the baked one");
  const root = readRootLayer(new TextDecoder().decode(readZipEntries(bytes)[0].data));
  assert.equal(root.meshes[0].geometry, root.meshes[1].geometry);
  assert.notEqual(root.meshes[2].geometry, root.meshes[0].geometry);
  // Six flat faces of a cube: 4 points each once creased (24), whatever the 8 shared corners.
  const g = readGeometryLayer(
    new TextDecoder().decode(
      readZipEntries(bytes).find((e) => e.name === root.meshes[0].geometry)!.data,
    ),
  );
  assert.equal(g.points.length / 3, 24);
});

Deno.test("usdz - a part without triangles is left out", async () => {
  const empty: UsdzPart = {
    name: "Nothing",
    color: "#000000",
    mesh: { hash: "e", positions: new Float32Array(), indices: new Uint32Array() },
    instances: [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]],
  };
  const bytes = await buildUsdz({ parts: [empty], bbox: { min: [0, 0, 0], max: [0, 0, 0] } });
  const entries = readZipEntries(bytes);
  assert.deepEqual(entries.map((e) => e.name), ["model.usda"]);
  assert.equal(readRootLayer(new TextDecoder().decode(entries[0].data)).meshes.length, 0);
});
