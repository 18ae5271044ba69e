/**
 * DAG evaluation on manifold-3d: every op against analytic volumes and boxes, closed and
 * outward-oriented meshes, instances, shared meshes and hashes, the limits and errors only
 * evaluation can see — and, after every case, no live WASM object (a counting runtime).
 */
import assert from "node:assert/strict";
import type { Dag, DagNode } from "@/lib/dag/dag_types.ts";
import { EvalError } from "@/lib/kernel/eval_errors.ts";
import { evaluateDag, evaluateDagExact, type ExactMesh } from "@/lib/kernel/evaluate.ts";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "@/lib/kernel/eval_limits.ts";
import { KERNEL_VERSION, MANIFOLD_VERSION } from "@/lib/kernel/kernel_version.ts";
import { createManifoldRuntime, type ManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import { decodeMesh, meshDecoderReady } from "@/lib/client/mesh_decode.ts";
import type { Scene } from "@/lib/dag/scene.ts";

await meshDecoderReady();

const runtime = await createManifoldRuntime({ trackObjects: true });

type Nodes = Record<string, unknown>;

/** A DAG whose assembly holds one part per listed node id (named after it). */
function dagOf(nodes: Nodes, partsOf: string[] = ["shape"]): Dag {
  const all: Nodes = { ...nodes };
  const parts = partsOf.map((id) => {
    const key = `part_${id}`;
    all[key] ??= { op: "part", name: id, color: "#8899aa", child: { ref: id } };
    return { ref: key };
  });
  all.out = { op: "assembly", parts };
  return { dag: 1, nodes: all as Record<string, DagNode>, output: "out" };
}

/**
 * Evaluates, checks every mesh is a closed outward 2-manifold (on the kernel's exact geometry)
 * whose wire form decodes to it within half a quantization step, and that nothing leaked.
 */
async function evaluate(
  nodes: Nodes,
  partsOf?: string[],
  limits: EvalLimits = DEFAULT_EVAL_LIMITS,
  rt: ManifoldRuntime = runtime,
): Promise<Scene> {
  try {
    const { scene, exact } = await evaluateDagExact(dagOf(nodes, partsOf), rt, limits);
    assert.deepEqual(new Set(exact.keys()), new Set(Object.keys(scene.meshes)));
    for (const [hash, mesh] of exact) {
      assertClosedManifold(mesh);
      assertDecodesTo(scene.meshes[hash], mesh);
    }
    return scene;
  } finally {
    assert.equal(runtime.liveObjects!(), 0, "WASM objects leaked");
  }
}

/** Evaluation must fail with this code, reason and (when given) pointer — and leak nothing. */
async function assertFails(
  nodes: Nodes,
  code: string,
  reason: string,
  pointer?: string,
  limits?: EvalLimits,
  partsOf?: string[],
): Promise<void> {
  await assert.rejects(evaluate(nodes, partsOf, limits), (err: unknown) => {
    assert.ok(err instanceof EvalError, `not an EvalError: ${err}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.reason, reason, err.message);
    if (pointer !== undefined) assert.equal(err.pointer, pointer);
    return true;
  });
}

/**
 * Every edge, after welding equal positions, is used by exactly two triangles in opposite
 * directions, and the signed volume (divergence theorem) is positive: closed and outward.
 */
function assertClosedManifold({ positions, indices }: ExactMesh): void {
  const weld = new Map<string, number>();
  const id = (v: number) => {
    const key = `${positions[3 * v]},${positions[3 * v + 1]},${positions[3 * v + 2]}`;
    if (!weld.has(key)) weld.set(key, weld.size);
    return weld.get(key)!;
  };
  const directed = new Map<string, number>();
  let volume = 0;
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [id(indices[t]), id(indices[t + 1]), id(indices[t + 2])];
    assert.ok(a !== b && b !== c && a !== c, "degenerate triangle");
    for (const [u, v] of [[a, b], [b, c], [c, a]]) {
      const key = `${u}>${v}`;
      directed.set(key, (directed.get(key) ?? 0) + 1);
    }
    const p = (
      i: number,
    ) => [positions[3 * indices[i]], positions[3 * indices[i] + 1], positions[3 * indices[i] + 2]];
    const [p0, p1, p2] = [p(t), p(t + 1), p(t + 2)];
    volume += (p0[0] * (p1[1] * p2[2] - p2[1] * p1[2]) - p1[0] * (p0[1] * p2[2] - p2[1] * p0[2]) +
      p2[0] * (p0[1] * p1[2] - p1[1] * p0[2])) / 6;
  }
  for (const [key, count] of directed) {
    assert.equal(count, 1, `edge ${key} is used ${count} times in one direction`);
    const [u, v] = key.split(">");
    assert.equal(directed.get(`${v}>${u}`), 1, `edge ${key} has no opposite`);
  }
  assert.ok(volume > 0, `signed volume ${volume} is not positive`);
}

/** The wire form decodes to the exact mesh: indices equal, coordinates within half a step. */
function assertDecodesTo(encoded: Scene["meshes"][string], exact: ExactMesh): void {
  const decoded = decodeMesh("h", encoded);
  assert.deepEqual(decoded.indices, new Uint32Array(exact.indices));
  assert.equal(decoded.vertexCount * 3, exact.positions.length);
  for (let i = 0; i < exact.positions.length; i++) {
    // Half a step, plus Float32 rounding of min + q·scale (a vertex on the mid-plane of a
    // symmetric mesh sits exactly half a step from two codes, so the rounding decides).
    const f32 = (Math.abs(exact.positions[i]) + Math.abs(encoded.min[i % 3])) * 2 ** -23;
    const bound = encoded.scale[i % 3] / 2 + f32;
    assert.ok(Math.abs(decoded.positions[i] - exact.positions[i]) <= bound, `coordinate ${i}`);
  }
}

/** Area of a regular n-gon of circumradius r (manifold's circles are inscribed polygons). */
const ngon = (r: number, n: number) => 0.5 * n * r * r * Math.sin(2 * Math.PI / n);

function near(actual: number, expected: number, tolerance = 1e-9, what = "value"): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} is not ${expected}`,
  );
}

function assertBox(scene: Scene, min: number[], max: number[], tolerance = 1e-6): void {
  for (let k = 0; k < 3; k++) {
    near(scene.bbox.min[k], min[k], tolerance, `bbox.min[${k}]`);
    near(scene.bbox.max[k], max[k], tolerance, `bbox.max[${k}]`);
  }
}

const ref = (id: string) => ({ ref: id });
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const moved = (x: number, y: number, z: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];

/** The number an expression node computes, read back as the x size of a box. */
async function computed(nodes: Nodes, id: string): Promise<number> {
  const scene = await evaluate({ ...nodes, shape: { op: "box", size: [ref(id), 1, 1] } });
  return scene.bbox.max[0];
}

Deno.test("kernel - the counting runtime sees every kind of object evaluation makes", () => {
  const { Manifold, CrossSection } = runtime;
  const cube = Manifold.cube([1, 1, 1]);
  const square = CrossSection.square([1, 1]);
  const made = [
    cube.translate([1, 0, 0]),
    cube.transform([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1]),
    cube.rotate([0, 0, 30]),
    cube.scale([1, 2, 3]),
    cube.mirror([1, 0, 0]),
    Manifold.union([cube, cube]),
    Manifold.difference([cube, cube]),
    Manifold.intersection([cube]),
    Manifold.hull([cube]),
    Manifold.sphere(1, 8),
    Manifold.cylinder(1, 1, 1, 8),
    square.extrude(1),
    square.revolve(8),
    CrossSection.circle(1, 8),
    new CrossSection([[[0, 0], [1, 0], [0, 1]]], "Positive"),
  ];
  assert.equal(runtime.liveObjects!(), made.length + 2);
  for (const object of [cube, square, ...made]) object.delete();
  assert.equal(runtime.liveObjects!(), 0);
});

Deno.test("kernel - KERNEL_VERSION names the installed manifold-3d", async () => {
  const url = new URL("../../node_modules/manifold-3d/package.json", import.meta.url);
  const pkg = JSON.parse(await Deno.readTextFile(url));
  assert.equal(pkg.version, MANIFOLD_VERSION, "bump MANIFOLD_VERSION (and the cache key)");
  assert.match(KERNEL_VERSION, /^manifold-3d@\d+\.\d+\.\d+\+dag1\+eval\d+$/);
});

Deno.test("kernel - box: exact volume and bbox, corner or centered", async () => {
  const scene = await evaluate({ shape: { op: "box", size: [10, 20, 30] } });
  assert.equal(scene.volume, 6000);
  assertBox(scene, [0, 0, 0], [10, 20, 30]);
  assert.equal(scene.triangles, 12);
  assert.deepEqual(scene.parts[0].instances, [IDENTITY]);
  assert.equal(scene.parts[0].color, "#8899aa");
  const centered = await evaluate({ shape: { op: "box", size: [10, 20, 30], center: true } });
  assertBox(centered, [-5, -10, -15], [5, 10, 15]);
});

Deno.test("kernel - cylinder, cone and sphere within polygonization tolerance", async () => {
  const cyl = await evaluate({ shape: { op: "cylinder", height: 10, radius: 5, segments: 64 } });
  near(cyl.volume, ngon(5, 64) * 10, 1e-9, "cylinder volume");
  assertBox(cyl, [-5, -5, 0], [5, 5, 10], 1e-5);
  const cone = await evaluate({
    shape: { op: "cylinder", height: 9, radius: 4, radiusTop: 0, segments: 32, center: true },
  });
  near(cone.volume, ngon(4, 32) * 9 / 3, 1e-9, "cone volume");
  assertBox(cone, [-4, -4, -4.5], [4, 4, 4.5], 1e-5);
  const sphere = await evaluate({ shape: { op: "sphere", radius: 10, segments: 64 } });
  const ideal = 4 / 3 * Math.PI * 1000;
  assert.ok(sphere.volume < ideal && sphere.volume > 0.98 * ideal, `sphere ${sphere.volume}`);
  assertBox(sphere, [-10, -10, -10], [10, 10, 10], 1e-5);
});

Deno.test("kernel - difference: a box minus a through-hole", async () => {
  const scene = await evaluate({
    plate: { op: "box", size: [20, 20, 10] },
    hole: { op: "cylinder", height: 30, radius: 3, segments: 32, center: true },
    at: { op: "translate", child: ref("hole"), offset: [10, 10, 5] },
    shape: { op: "difference", base: ref("plate"), subtract: [ref("at")] },
  });
  near(scene.volume, 4000 - ngon(3, 32) * 10, 1e-9, "volume");
  assertBox(scene, [0, 0, 0], [20, 20, 10]);
});

Deno.test("kernel - extrude: rectangle prism, centered, pyramid to a point, twist", async () => {
  const prism = await evaluate({
    r: { op: "rectangle", size: [4, 5] },
    shape: { op: "extrude", profile: ref("r"), height: 6, center: true },
  });
  assert.equal(prism.volume, 120);
  assertBox(prism, [0, 0, -3], [4, 5, 3]);
  const pyramid = await evaluate({
    r: { op: "rectangle", size: [4, 6], center: true },
    shape: { op: "extrude", profile: ref("r"), height: 6, scaleTop: [0, 0] },
  });
  near(pyramid.volume, 4 * 6 * 6 / 3, 1e-9, "pyramid");
  const twisted = await evaluate({
    c: { op: "circle", radius: 2, segments: 16 },
    shape: { op: "extrude", profile: ref("c"), height: 5, twist: 90, divisions: 8 },
  });
  // Twisting bends the flat facets, so the volume is close to, not exactly, the prism's.
  near(twisted.volume, ngon(2, 16) * 5, 1e-2, "a twisted circle keeps about its volume");
});

Deno.test("kernel - revolve: rectangle to cylinder, ring to shell, partial turn starts at +X", async () => {
  const cylinder = await evaluate({
    r: { op: "rectangle", size: [2, 3] },
    shape: { op: "revolve", profile: ref("r"), segments: 48 },
  });
  near(cylinder.volume, ngon(2, 48) * 3, 1e-9, "cylinder");
  assertBox(cylinder, [-2, -2, 0], [2, 2, 3], 1e-6);
  const ring = [[3, 0], [5, 0], [5, 4], [3, 4]];
  const shell = await evaluate({
    p: { op: "polygon", points: ring },
    shape: { op: "revolve", profile: ref("p"), segments: 64 },
  });
  near(shell.volume, (ngon(5, 64) - ngon(3, 64)) * 4, 1e-9, "shell");
  const quarter = await evaluate({
    p: { op: "polygon", points: ring },
    shape: { op: "revolve", profile: ref("p"), segments: 64, degrees: 90 },
  });
  near(quarter.volume, (ngon(5, 64) - ngon(3, 64)) * 4 / 4, 1e-9, "quarter");
  assertBox(quarter, [0, 0, 0], [5, 5, 4], 1e-6);
});

Deno.test("kernel - profiles: rounded rectangle touches its size; circle; polygon", async () => {
  const rounded = await evaluate({
    r: { op: "roundedRectangle", size: [20, 10], radius: 3, segments: 32 },
    shape: { op: "extrude", profile: ref("r"), height: 1 },
  });
  // The four quarter arcs (8 edges each) together are a regular 32-gon.
  near(rounded.volume, 200 - 4 * 9 + ngon(3, 32), 1e-9, "rounded rectangle");
  assertBox(rounded, [0, 0, 0], [20, 10, 1]);
  const stadium = await evaluate({
    r: { op: "roundedRectangle", size: [20, 10], radius: 5, segments: 16, center: true },
    shape: { op: "extrude", profile: ref("r"), height: 1 },
  });
  near(stadium.volume, 200 - 100 + ngon(5, 16), 1e-9, "stadium");
  assertBox(stadium, [-10, -5, 0], [10, 5, 1]);
  const square = await evaluate({
    r: { op: "roundedRectangle", size: [2, 3], radius: 0 },
    shape: { op: "extrude", profile: ref("r"), height: 1 },
  });
  assert.equal(square.volume, 6);
  const circle = await evaluate({
    c: { op: "circle", radius: 3 },
    shape: { op: "extrude", profile: ref("c"), height: 2 },
  });
  near(circle.volume, ngon(3, 48) * 2, 1e-9, "circle (48 segments by default)");
  const triangle = await evaluate({
    p: { op: "polygon", points: [[0, 0], [4, 0], [0, 3]] },
    shape: { op: "extrude", profile: ref("p"), height: 2 },
  });
  near(triangle.volume, 12, 1e-12, "triangle");
});

Deno.test("kernel - offset: miter, square and round joins grow a square; a negative delta shrinks it", async () => {
  const grown = (delta: number, join?: string) =>
    evaluate({
      sq: { op: "rectangle", size: [10, 10] },
      o: { op: "offset", profile: ref("sq"), delta, segments: 48, ...(join ? { join } : {}) },
      shape: { op: "extrude", profile: ref("o"), height: 1 },
    });
  const miter = await grown(1, "miter");
  near(miter.volume, 144, 1e-9, "a mitred offset keeps square corners");
  assertBox(miter, [-1, -1, 0], [11, 11, 1]);
  const round = await grown(1);
  // Straight sides move out by 1; the four corners together make one faceted circle of radius 1.
  assert.ok(
    round.volume < 140 + Math.PI && round.volume > 140 + ngon(1, 48) - 1e-3,
    `${round.volume}`,
  );
  assertBox(round, [-1, -1, 0], [11, 11, 1]);
  const square = await grown(1, "square");
  assert.ok(square.volume > round.volume && square.volume < 144, `square ${square.volume}`);
  assertBox(square, [-1, -1, 0], [11, 11, 1]);
  const shrunk = await grown(-1);
  near(shrunk.volume, 64, 1e-9, "shrinking a convex outline keeps its corners");
  assertBox(shrunk, [1, 1, 0], [9, 9, 1]);
  // A ring: a 64-gon grown by 1, minus the 64-gon. Grown area = A + perimeter·1 + the corners'
  // faceted unit circle, so the ring is the perimeter plus that circle.
  const ring = await evaluate({
    c: { op: "circle", radius: 5, segments: 64 },
    thick: { op: "offset", profile: ref("c"), delta: 1, segments: 64 },
    outer: { op: "extrude", profile: ref("thick"), height: 1 },
    inner: { op: "extrude", profile: ref("c"), height: 1 },
    shape: { op: "difference", base: ref("outer"), subtract: [ref("inner")] },
  });
  const perimeter = 64 * 2 * 5 * Math.sin(Math.PI / 64);
  near(ring.volume, perimeter + ngon(1, 64), 1e-6, "ring");
  // One step of a 64-segment join spans a 64-gon's corner: no join point lies on the axes.
  const reach = 5 + Math.cos(Math.PI / 64);
  assertBox(ring, [-reach, -reach, 0], [reach, reach, 1], 1e-6);
});

Deno.test("kernel - fillet2d rounds convex corners only; a profile thinner than 2·radius vanishes", async () => {
  const filleted = (profile: unknown, radius: number) =>
    evaluate({
      s: profile,
      f: { op: "fillet2d", profile: ref("s"), radius, segments: 48 },
      shape: { op: "extrude", profile: ref("f"), height: 1 },
    });
  // A 10×10 square, r = 2: the 6×6 inset grown back by 2 — its four corners one faceted circle.
  const square = await filleted({ op: "rectangle", size: [10, 10] }, 2);
  near(square.volume, 6 * 6 + 4 * 6 * 2 + ngon(2, 48), 1e-9, "filleted square");
  assertBox(square, [0, 0, 0], [10, 10, 1]);
  // An L of 64: five convex corners lose (1 − ¼ faceted circle) each, the concave one nothing.
  const l = [[0, 0], [10, 0], [10, 4], [4, 4], [4, 10], [0, 10]];
  const ell = await filleted({ op: "polygon", points: l }, 1);
  near(ell.volume, 64 - 5 * (1 - ngon(1, 48) / 4), 1e-5, "filleted L");
  assertBox(ell, [0, 0, 0], [10, 10, 1]);
  await assertFails(
    {
      s: { op: "rectangle", size: [10, 1] },
      f: { op: "fillet2d", profile: ref("s"), radius: 1 },
      shape: { op: "extrude", profile: ref("f"), height: 1 },
    },
    "render_failed",
    "empty_geometry",
    "/nodes/f",
  );
});

Deno.test("kernel - union, intersection and hull", async () => {
  const nodes = {
    a: { op: "box", size: [10, 10, 10] },
    b0: { op: "box", size: [10, 10, 10] },
    b: { op: "translate", child: ref("b0"), offset: [5, 5, 5] },
  };
  const union = await evaluate({
    ...nodes,
    shape: { op: "union", children: [ref("a"), ref("b")] },
  });
  assert.equal(union.volume, 2000 - 125);
  assertBox(union, [0, 0, 0], [15, 15, 15]);
  const meet = await evaluate({
    ...nodes,
    shape: { op: "intersection", children: [ref("a"), ref("b")] },
  });
  assert.equal(meet.volume, 125);
  assertBox(meet, [5, 5, 5], [10, 10, 10]);
  const hull = await evaluate({
    s: { op: "sphere", radius: 1, segments: 64 },
    t: { op: "translate", child: ref("s"), offset: [10, 0, 0] },
    shape: { op: "hull", children: [ref("s"), ref("t")] },
  });
  const capsule = Math.PI * 10 + 4 / 3 * Math.PI;
  assert.ok(hull.volume < capsule && hull.volume > 0.98 * capsule, `hull ${hull.volume}`);
  assertBox(hull, [-1, -1, -1], [11, 1, 1], 1e-6);
});

Deno.test("kernel - transforms of solids: translate, rotate, scale, mirror", async () => {
  const base = { b: { op: "box", size: [1, 2, 3] } };
  const t = await evaluate({
    ...base,
    shape: { op: "translate", child: ref("b"), offset: [5, 6, 7] },
  });
  assertBox(t, [5, 6, 7], [6, 8, 10]);
  const r = await evaluate({
    ...base,
    shape: { op: "rotate", child: ref("b"), degrees: [0, 0, 90] },
  });
  assertBox(r, [-2, 0, 0], [0, 1, 3]);
  const rx = await evaluate({
    ...base,
    shape: { op: "rotate", child: ref("b"), degrees: [90, 0, 0] },
  });
  assertBox(rx, [0, -3, 0], [1, 0, 2]);
  const s = await evaluate({
    ...base,
    shape: { op: "scale", child: ref("b"), factor: [2, 3, -1] },
  });
  assertBox(s, [0, 0, -3], [2, 6, 0]);
  assert.equal(s.volume, 36, "a mirroring scale keeps a positive volume (and outward faces)");
  const m = await evaluate({
    ...base,
    shape: { op: "mirror", child: ref("b"), normal: [2, 0, 0] },
  });
  assertBox(m, [-1, 0, 0], [0, 2, 3]);
  assert.equal(m.volume, 6);
});

Deno.test("kernel - repeats: instances share one mesh and carry their transforms", async (t) => {
  const cube = { c: { op: "box", size: [1, 1, 1] } };
  await t.step("linear", async () => {
    const scene = await evaluate({
      ...cube,
      shape: { op: "linearRepeat", child: ref("c"), count: 3, step: [10, 0, 0] },
    });
    assert.equal(Object.keys(scene.meshes).length, 1);
    const mesh = scene.meshes[scene.parts[0].mesh];
    assert.equal(mesh.triangleCount, 12, "the mesh is sent once");
    assert.deepEqual(scene.parts[0].instances, [moved(0, 0, 0), moved(10, 0, 0), moved(20, 0, 0)]);
    assert.equal(scene.triangles, 36);
    assert.equal(scene.volume, 3);
    assertBox(scene, [0, 0, 0], [21, 1, 1]);
  });
  await t.step("grid, x fastest", async () => {
    const scene = await evaluate({
      ...cube,
      shape: { op: "gridRepeat", child: ref("c"), count: [2, 3], step: [5, 7] },
    });
    assert.deepEqual(scene.parts[0].instances, [
      moved(0, 0, 0),
      moved(5, 0, 0),
      moved(0, 7, 0),
      moved(5, 7, 0),
      moved(0, 14, 0),
      moved(5, 14, 0),
    ]);
    assertBox(scene, [0, 0, 0], [6, 15, 1]);
  });
  await t.step("polar: a full turn spaces evenly, a partial span ends on its last", async () => {
    const full = await evaluate({
      ...cube,
      shape: { op: "polarRepeat", child: ref("c"), count: 4 },
    });
    const z = (
      cos: number,
      sin: number,
    ) => [cos, sin, 0, 0, -sin + 0, cos, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    assert.deepEqual(full.parts[0].instances, [z(1, 0), z(0, 1), z(-1, 0), z(0, -1)]);
    assertBox(full, [-1, -1, 0], [1, 1, 1]);
    const half = await evaluate({
      ...cube,
      shape: { op: "polarRepeat", child: ref("c"), count: 3, degrees: 180 },
    });
    assert.deepEqual(half.parts[0].instances, [z(1, 0), z(0, 1), z(-1, 0)]);
  });
  await t.step("nested repeats multiply; transforms apply to every instance", async () => {
    const scene = await evaluate({
      ...cube,
      row: { op: "linearRepeat", child: ref("c"), count: 2, step: [2, 0, 0] },
      rows: { op: "linearRepeat", child: ref("row"), count: 3, step: [0, 0, 5] },
      shape: { op: "translate", child: ref("rows"), offset: [100, 0, 0] },
    });
    assert.equal(scene.parts[0].instances.length, 6);
    assert.deepEqual(scene.parts[0].instances[5], moved(102, 0, 10));
    assertBox(scene, [100, 0, 0], [103, 1, 11]);
    assert.equal(scene.volume, 6);
  });
  await t.step("a mirror of instances keeps every instance transform unmirrored", async () => {
    const scene = await evaluate({
      w: { op: "polygon", points: [[0, 0], [3, 0], [0, 1]] },
      wedge: { op: "extrude", profile: ref("w"), height: 1 },
      row: { op: "linearRepeat", child: ref("wedge"), count: 2, step: [0, 5, 0] },
      shape: { op: "mirror", child: ref("row"), normal: [1, 0, 0] },
    });
    for (const m of scene.parts[0].instances) {
      const det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
        m[8] * (m[1] * m[6] - m[5] * m[2]);
      assert.ok(det > 0, "an instanced viewer would draw a mirrored instance inside out");
    }
    assertBox(scene, [-3, 0, 0], [0, 6, 1]);
    near(scene.volume, 3, 1e-12, "volume");
  });
});

Deno.test("kernel - booleans and hull merge instances first", async () => {
  const bracket = await evaluate({
    plate: { op: "box", size: [80, 40, 4] },
    hole: { op: "cylinder", height: 10, radius: 2.5, segments: 32, center: true },
    holes: { op: "linearRepeat", child: ref("hole"), count: 2, step: [40, 0, 0] },
    at: { op: "translate", child: ref("holes"), offset: [20, 20, 0] },
    shape: { op: "difference", base: ref("plate"), subtract: [ref("at")] },
  });
  near(bracket.volume, 12800 - 2 * 4 * ngon(2.5, 32), 1e-9, "bracket");
  assert.deepEqual(bracket.parts[0].instances, [IDENTITY]);
  const cross = await evaluate({
    bar: { op: "box", size: [10, 2, 2], center: true },
    bars: { op: "polarRepeat", child: ref("bar"), count: 2, degrees: 90 },
    shape: { op: "union", children: [ref("bars")] },
  });
  near(cross.volume, 2 * 40 - 8, 1e-9, "overlapping instances are unioned, not summed");
  const hull = await evaluate({
    c: { op: "box", size: [1, 1, 1] },
    row: { op: "linearRepeat", child: ref("c"), count: 3, step: [4, 0, 0] },
    shape: { op: "hull", children: [ref("row")] },
  });
  assert.equal(hull.volume, 9);
});

Deno.test("kernel - arithmetic, round, clamp, compare and select", async () => {
  const p = { w: { op: "ParameterInput", parameter: "w", fallback: 8, value: 12 } };
  assert.equal(await computed({ ...p, e: { op: "add", args: [ref("w"), 3, 0.5] } }, "e"), 15.5);
  assert.equal(await computed({ ...p, e: { op: "mul", args: [ref("w"), 0.5] } }, "e"), 6);
  assert.equal(await computed({ ...p, e: { op: "min", args: [ref("w"), 7, 9] } }, "e"), 7);
  assert.equal(await computed({ ...p, e: { op: "max", args: [ref("w"), 7] } }, "e"), 12);
  assert.equal(await computed({ ...p, e: { op: "sub", a: ref("w"), b: 2 } }, "e"), 10);
  assert.equal(await computed({ ...p, e: { op: "div", a: ref("w"), b: 8 } }, "e"), 1.5);
  assert.equal(await computed({ e: { op: "clamp", value: 30, min: 1, max: 20 } }, "e"), 20);
  assert.equal(await computed({ e: { op: "clamp", value: -3, min: 1, max: 20 } }, "e"), 1);
  const round = (value: number, step: number | undefined, mode?: string) =>
    computed(
      { e: { op: "round", value, ...(step ? { step } : {}), ...(mode ? { mode } : {}) } },
      "e",
    );
  assert.equal(await round(7.5, undefined), 8);
  assert.equal(await round(7.4, 2), 8);
  assert.equal(await round(7.4, 5, "floor"), 5);
  assert.equal(await round(7.4, 5, "ceil"), 10);
  near(await round(0.3, 0.1, "floor"), 0.3, 1e-6, "floor(0.3 / 0.1) is 3 steps, not 2");
  near(await round(0.7, 0.1, "ceil"), 0.7, 1e-6, "ceil(0.7 / 0.1) is 7 steps, not 8");
  const pick = (test: string, a: unknown, b: unknown) =>
    computed({
      c: { op: "compare", test, a, b },
      e: { op: "select", cond: ref("c"), then: 2, else: 3 },
    }, "e");
  assert.equal(await pick("lt", 1, 2), 2);
  assert.equal(await pick("le", 2, 2), 2);
  assert.equal(await pick("gt", 1, 2), 3);
  assert.equal(await pick("ge", 1, 2), 3);
  assert.equal(await pick("eq", "a", "a"), 2);
  assert.equal(await pick("ne", true, true), 3);
  const style = { s: { op: "ParameterInput", parameter: "s", fallback: "round", value: "square" } };
  const geometry = await evaluate({
    ...style,
    isRound: { op: "compare", test: "eq", a: ref("s"), b: "round" },
    ball: { op: "sphere", radius: 1 },
    cube: { op: "box", size: [2, 2, 2] },
    shape: { op: "select", cond: ref("isRound"), then: ref("ball"), else: ref("cube") },
  });
  assert.equal(geometry.volume, 8, "select picks geometry too");
});

/** The shared runtime with a count of `Manifold.sphere` lookups (each sphere built looks it up). */
function countingSpheres(): { counting: ManifoldRuntime; spheres: () => number } {
  let spheres = 0;
  const counting: ManifoldRuntime = {
    ...runtime,
    Manifold: new Proxy(runtime.Manifold, {
      get(target, key, receiver) {
        if (key === "sphere") spheres++;
        return Reflect.get(target, key, receiver);
      },
    }),
  };
  return { counting, spheres: () => spheres };
}

Deno.test("kernel - select evaluates only the branch it picks", async () => {
  const { counting, spheres } = countingSpheres();
  const scene = await evaluate(
    {
      zero: { op: "sub", a: 1, b: 1 },
      bad: { op: "div", a: 1, b: ref("zero") },
      ball: { op: "sphere", radius: ref("bad") },
      cube: { op: "box", size: [1, 1, 1] },
      shape: { op: "select", cond: false, then: ref("ball"), else: ref("cube") },
    },
    undefined,
    DEFAULT_EVAL_LIMITS,
    counting,
  );
  assert.equal(scene.volume, 1);
  assert.equal(spheres(), 0);
});

Deno.test("kernel - a shared sub-graph is evaluated once", async () => {
  const { counting, spheres } = countingSpheres();
  const scene = await evaluate(
    {
      ball: { op: "sphere", radius: 1, segments: 16 },
      a: { op: "translate", child: ref("ball"), offset: [5, 0, 0] },
      b: { op: "translate", child: ref("ball"), offset: [-5, 0, 0] },
      shape: { op: "union", children: [ref("a"), ref("b"), ref("ball")] },
    },
    ["shape", "ball"],
    DEFAULT_EVAL_LIMITS,
    counting,
  );
  assert.equal(spheres(), 1);
  assert.equal(scene.parts.length, 2);
});

Deno.test("kernel - equal geometry shares one mesh hash; a geometry change changes it", async () => {
  const bracket = (width: number, color = "#8899aa") => ({
    w: { op: "ParameterInput", parameter: "w", fallback: 80, value: width },
    c: { op: "ParameterInput", parameter: "c", fallback: "#8899aa", value: color },
    plate: { op: "box", size: [ref("w"), 40, 4] },
    twin: { op: "box", size: [ref("w"), 40, 4] },
  });
  const scene = await evaluate(bracket(80), ["plate", "twin"]);
  assert.equal(scene.parts[0].mesh, scene.parts[1].mesh);
  assert.equal(Object.keys(scene.meshes).length, 1);
  assert.match(scene.parts[0].mesh, /^[0-9a-f]{64}$/);
  assert.equal(scene.triangles, 24, "both parts are drawn");
  const again = await evaluate(bracket(80), ["plate", "twin"]);
  assert.equal(again.parts[0].mesh, scene.parts[0].mesh, "hashes are deterministic");
  const wider = await evaluate(bracket(90), ["plate", "twin"]);
  assert.notEqual(wider.parts[0].mesh, scene.parts[0].mesh);
});

Deno.test("kernel - computed values out of range fail typed, with a pointer", async (t) => {
  const cases: [string, Nodes, string, string, string][] = [
    [
      "division by a computed zero",
      {
        z: { op: "sub", a: 2, b: 2 },
        d: { op: "div", a: 1, b: ref("z") },
        shape: { op: "box", size: [ref("d"), 1, 1] },
      },
      "render_failed",
      "division_by_zero",
      "/nodes/d/b",
    ],
    [
      "NaN",
      {
        n: { op: "ParameterInput", parameter: "n", fallback: 1, value: NaN },
        shape: { op: "box", size: [ref("n"), 1, 1] },
      },
      "render_failed",
      "nan",
      "/nodes/n/value",
    ],
    [
      "overflow past 1e6",
      {
        big: { op: "mul", args: [1e6, 1e6] },
        shape: { op: "box", size: [ref("big"), 1, 1] },
      },
      "render_failed",
      "out_of_range",
      "/nodes/big",
    ],
    [
      "a computed zero size",
      {
        z: { op: "sub", a: 2, b: 2 },
        shape: { op: "box", size: [ref("z"), 1, 1] },
      },
      "render_failed",
      "out_of_range",
      "/nodes/shape/size",
    ],
    [
      "clamp with min above max",
      {
        c: { op: "clamp", value: 1, min: 5, max: 2 },
        shape: { op: "box", size: [ref("c"), 1, 1] },
      },
      "render_failed",
      "out_of_range",
      "/nodes/c/min",
    ],
    [
      "computed segments above 256",
      {
        n: { op: "mul", args: [100, 3] },
        shape: { op: "sphere", radius: 1, segments: ref("n") },
      },
      "invalid_dag",
      "out_of_range",
      "/nodes/shape/segments",
    ],
    [
      "computed segments that are not integers",
      {
        n: { op: "div", a: 45, b: 2 },
        shape: { op: "sphere", radius: 1, segments: ref("n") },
      },
      "invalid_dag",
      "not_an_integer",
      "/nodes/shape/segments",
    ],
    [
      "too many instances",
      {
        c: { op: "box", size: [1, 1, 1] },
        g: { op: "gridRepeat", child: ref("c"), count: [100, 100], step: [2, 2] },
        shape: { op: "linearRepeat", child: ref("g"), count: 2, step: [0, 0, 2] },
      },
      "invalid_dag",
      "too_many_instances",
      "/nodes/shape",
    ],
    [
      "a computed clockwise polygon",
      {
        x: { op: "sub", a: 0, b: 4 },
        p: { op: "polygon", points: [[0, 0], [ref("x"), 3], [0, 3]] },
        shape: { op: "extrude", profile: ref("p"), height: 1 },
      },
      "render_failed",
      "not_counter_clockwise",
      "/nodes/p/points",
    ],
    [
      "empty geometry",
      {
        a: { op: "box", size: [1, 1, 1] },
        b0: { op: "box", size: [1, 1, 1] },
        b: { op: "translate", child: ref("b0"), offset: [5, 0, 0] },
        shape: { op: "intersection", children: [ref("a"), ref("b")] },
      },
      "render_failed",
      "empty_geometry",
      "/nodes/part_shape",
    ],
    [
      "a computed bad color",
      {
        shape: { op: "box", size: [1, 1, 1] },
        part_shape: { op: "part", name: "x", color: "#ABCDEF", child: ref("shape") },
      },
      "invalid_dag",
      "bad_color",
      "/nodes/part_shape/color",
    ],
  ];
  for (const [name, nodes, code, reason, pointer] of cases) {
    await t.step(name, () => assertFails(nodes, code, reason, pointer));
  }
  await t.step("duplicate part names computed by select", async () => {
    const nodes = {
      shape: { op: "box", size: [1, 1, 1] },
      n: { op: "select", cond: true, then: "same", else: "other" },
      a: { op: "part", name: ref("n"), color: "#000000", child: ref("shape") },
      b: { op: "part", name: "same", color: "#000000", child: ref("shape") },
      out: { op: "assembly", parts: [ref("a"), ref("b")] },
    };
    const dag = { dag: 1, nodes, output: "out" } as unknown as Dag;
    await assert.rejects(evaluateDag(dag, runtime), { reason: "duplicate_part_name" });
    assert.equal(runtime.liveObjects!(), 0);
  });
});

Deno.test("kernel - triangle limit on intermediates and on the drawn output", async () => {
  const limits = { ...DEFAULT_EVAL_LIMITS, maxTriangles: 500 };
  await assertFails(
    { shape: { op: "sphere", radius: 1, segments: 48 } },
    "invalid_dag",
    "too_many_triangles",
    "/nodes/shape",
    limits,
  );
  await assertFails(
    {
      ball: { op: "sphere", radius: 1, segments: 48 },
      big: { op: "sphere", radius: 1, segments: 8 },
      shape: { op: "difference", base: ref("big"), subtract: [ref("ball")] },
    },
    "invalid_dag",
    "too_many_triangles",
    "/nodes/ball",
    limits,
  );
  // 60 instances of a 12-triangle cube: each mesh is small, the drawn scene is not.
  await assertFails(
    {
      c: { op: "box", size: [1, 1, 1] },
      shape: { op: "linearRepeat", child: ref("c"), count: 60, step: [2, 0, 0] },
    },
    "invalid_dag",
    "too_many_triangles",
    "/nodes/part_shape",
    limits,
  );
  // One boolean's inputs together may hold at most twice the limit.
  const far: Nodes = { ball: { op: "sphere", radius: 1, segments: 16 } }; // 128 triangles
  for (let i = 0; i < 9; i++) {
    far[`b${i}`] = { op: "translate", child: ref("ball"), offset: [3 * i, 0, 0] };
  }
  far.shape = { op: "union", children: Array.from({ length: 9 }, (_, i) => ref(`b${i}`)) };
  await assertFails(far, "invalid_dag", "too_many_triangles", "/nodes/shape", limits);
  // Merging instances is refused before the merged copies are built.
  await assertFails(
    {
      c: { op: "box", size: [1, 1, 1] },
      row: { op: "linearRepeat", child: ref("c"), count: 60, step: [2, 0, 0] },
      shape: { op: "union", children: [ref("row")] },
    },
    "invalid_dag",
    "too_many_triangles",
    "/nodes/shape/children/0",
    limits,
  );
});

Deno.test("kernel - unexpected structure fails typed instead of crashing", async (t) => {
  const run = (nodes: Record<string, unknown>, output = "out") =>
    evaluateDag({ dag: 1, nodes, output } as unknown as Dag, runtime);
  const part = { op: "part", name: "p", color: "#000000", child: ref("shape") };
  const out = { op: "assembly", parts: [ref("p")] };
  const cases: [string, Record<string, unknown>, string, string?][] = [
    ["a cycle", {
      shape: { op: "translate", child: ref("shape"), offset: [0, 0, 0] },
      p: part,
      out,
    }, "cycle"],
    [
      "an unknown reference",
      { shape: { op: "box", size: [ref("nope"), 1, 1] }, p: part, out },
      "unknown_reference",
    ],
    ["an unknown op", { shape: { op: "torus" }, p: part, out }, "unknown_op"],
    ["a type mismatch", {
      s: { op: "sphere", radius: 1 },
      shape: { op: "box", size: [ref("s"), 1, 1] },
      p: part,
      out,
    }, "type_mismatch"],
    [
      "an output that is not an assembly",
      { shape: { op: "box", size: [1, 1, 1] }, p: part },
      "output_not_assembly",
      "p",
    ],
    [
      "a profile where a solid belongs",
      { shape: { op: "circle", radius: 1 }, p: part, out },
      "type_mismatch",
    ],
  ];
  for (const [name, nodes, reason, output] of cases) {
    await t.step(name, async () => {
      await assert.rejects(run(nodes, output), (err: unknown) => {
        assert.ok(err instanceof EvalError && err.code === "invalid_dag", String(err));
        assert.equal(err.reason, reason);
        return true;
      });
      assert.equal(runtime.liveObjects!(), 0);
    });
  }
});

Deno.test("kernel - a 2000-node chain evaluates without deep recursion", async () => {
  const nodes: Nodes = { n0: { op: "box", size: [1, 1, 1] }, x0: { op: "add", args: [0] } };
  for (let i = 1; i < 1000; i++) {
    nodes[`n${i}`] = { op: "translate", child: ref(`n${i - 1}`), offset: [0.001, 0, 0] };
    nodes[`x${i}`] = { op: "add", args: [ref(`x${i - 1}`), 0.002] };
  }
  nodes.shape = { op: "translate", child: ref("n999"), offset: [ref("x999"), 0, 0] };
  const scene = await evaluate(nodes);
  near(scene.bbox.min[0], 0.999 + 1.998, 1e-5, "chained offsets");
});

Deno.test("kernel - 200 evaluations (and 200 failures) leave no WASM object behind", async () => {
  const bracket = {
    plate: { op: "box", size: [80, 40, 4] },
    hole: { op: "cylinder", height: 10, radius: 2.5, segments: 32, center: true },
    holes: { op: "linearRepeat", child: ref("hole"), count: 2, step: [40, 0, 0] },
    at: { op: "translate", child: ref("holes"), offset: [20, 20, 0] },
    rounded: { op: "roundedRectangle", size: [10, 10], radius: 2 },
    boss: { op: "extrude", profile: ref("rounded"), height: 8 },
    body: { op: "difference", base: ref("plate"), subtract: [ref("at")] },
    shape: { op: "union", children: [ref("body"), ref("boss")] },
  };
  const failing = {
    ...bracket,
    z: { op: "sub", a: 1, b: 1 },
    bad: { op: "div", a: 1, b: ref("z") },
    late: { op: "translate", child: ref("shape"), offset: [ref("bad"), 0, 0] },
  };
  const dag = dagOf(bracket);
  const bad = dagOf(failing, ["late"]);
  for (let i = 0; i < 200; i++) {
    await evaluateDag(dag, runtime);
    await assert.rejects(evaluateDag(bad, runtime), EvalError);
  }
  assert.equal(runtime.liveObjects!(), 0);
});

Deno.test("kernel - an aborted signal stops evaluation with render_timeout", async () => {
  const dag = dagOf({ shape: { op: "box", size: [1, 1, 1] } });
  const signal = AbortSignal.abort(new DOMException("late", "TimeoutError"));
  await assert.rejects(evaluateDag(dag, runtime, DEFAULT_EVAL_LIMITS, { signal }), {
    code: "render_timeout",
    reason: "deadline",
  });
  assert.equal(runtime.liveObjects!(), 0);
});
