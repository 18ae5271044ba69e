/**
 * The storefront examples in `examples/projects/*`: each template and schema validates, and the
 * finished DAG evaluates to closed meshes of plausible volume and size at the defaults, at the
 * parameter extremes and at a mixed set; mesh hashes change exactly where a parameter should act.
 */
import assert from "node:assert/strict";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { evaluateDagExact, type ExactMesh } from "@/lib/kernel/evaluate.ts";
import { createManifoldRuntime, type ManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import {
  type ParameterDescriptor,
  type ParameterSchema,
  validateParameterSchema,
} from "@/lib/dag/parameter_schema.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { substitute } from "@/lib/dag/substitute.ts";

const PROJECTS = new URL("../../examples/projects/", import.meta.url);
/** A part's mesh stays under this many triangles at any parameter values. */
const MAX_PART_TRIANGLES = 100_000;

type Values = Record<string, number | boolean | string>;
type Range = [lo: number, hi: number];

/** What a design must measure like, computed from its (complete) parameter values. */
interface Expectation {
  /** Volume bounds per part name, instances counted. */
  volume: Record<string, Range>;
  /** Expected box, with a tolerance per axis (or one for all). */
  bbox: {
    min: [number, number, number];
    max: [number, number, number];
    tol: number | [number, number, number];
  };
  /** Extra checks on the scene. */
  check?: (scene: Scene, v: Values) => void;
}

/** A mesh-hash expectation: from `base` (defaults when absent) to `base + change`. */
interface HashCase {
  name: string;
  base?: Values;
  change: Values;
  changed: string[];
  same: string[];
}

interface Example {
  slug: string;
  /** Mixed parameter sets: the combinations most likely to go degenerate. */
  mixed: Values[];
  expect: (v: Values) => Expectation;
  hashes: HashCase[];
}

// ---------------------------------------------------------------------------------------------
// Measuring scenes

/** Area of a regular n-gon inscribed in the unit circle ÷ π: faceted circles are this smaller. */
const facet = (n: number) => n * Math.sin(2 * Math.PI / n) / (2 * Math.PI);

/** The kernel's exact geometry of every scene evaluated here, by mesh hash (not the wire form). */
const exactMeshes = new WeakMap<Scene, Map<string, ExactMesh>>();

/**
 * A mesh's exact geometry, checked against the counts its wire form states: closed-manifold and
 * volume checks must not see the position quantization of the wire.
 */
function exactMesh(scene: Scene, hash: string, label: string): ExactMesh {
  const mesh = exactMeshes.get(scene)?.get(hash);
  assert.ok(mesh, `${label}: no exact geometry`);
  const encoded = scene.meshes[hash];
  assert.equal(mesh.positions.length, encoded.vertexCount * 3, `${label}: positions length`);
  assert.equal(mesh.indices.length, encoded.triangleCount * 3, `${label}: indices length`);
  return mesh;
}

/**
 * A closed 2-manifold: every directed edge occurs once and its reverse once, so every undirected
 * edge is shared by exactly two triangles with opposite orientations; no degenerate indices.
 */
function assertClosedManifold(mesh: ExactMesh, label: string): void {
  const { indices } = mesh;
  const vertexCount = mesh.positions.length / 3;
  assert.ok(indices.length > 0, `${label}: empty mesh`);
  const directed = new Set<number>();
  for (let t = 0; t < indices.length; t += 3) {
    const tri = [indices[t], indices[t + 1], indices[t + 2]];
    for (const v of tri) assert.ok(v < vertexCount, `${label}: index ${v} out of range`);
    assert.ok(
      tri[0] !== tri[1] && tri[1] !== tri[2] && tri[0] !== tri[2],
      `${label}: triangle ${t / 3} repeats a vertex`,
    );
    for (let k = 0; k < 3; k++) {
      const key = tri[k] * vertexCount + tri[(k + 1) % 3];
      assert.ok(!directed.has(key), `${label}: edge ${tri[k]}→${tri[(k + 1) % 3]} used twice`);
      directed.add(key);
    }
  }
  for (const key of directed) {
    const a = Math.floor(key / vertexCount), b = key % vertexCount;
    assert.ok(directed.has(b * vertexCount + a), `${label}: edge ${a}–${b} has one triangle`);
  }
}

/** Signed volume (outward-facing triangles give a positive volume). */
function signedVolume({ positions: p, indices }: ExactMesh): number {
  let sum = 0;
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t] * 3, b = indices[t + 1] * 3, c = indices[t + 2] * 3;
    sum += p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) -
      p[a + 1] * (p[b] * p[c + 2] - p[b + 2] * p[c]) +
      p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return sum / 6;
}

/** The determinant of a column-major 4×4 transform's linear part. */
function linearDeterminant(m: number[]): number {
  return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
    m[8] * (m[1] * m[6] - m[5] * m[2]);
}

interface Measured {
  /** Volume per part name, instances counted. */
  volume: Record<string, number>;
  bbox: { min: number[]; max: number[] };
  triangles: number;
}

/** Checks every mesh and measures the scene from its own buffers and transforms. */
function measureScene(scene: Scene, label: string): Measured {
  const decoded = new Map<string, ExactMesh>();
  for (const [hash, mesh] of Object.entries(scene.meshes)) {
    const m = exactMesh(scene, hash, `${label} mesh ${hash.slice(0, 8)}`);
    assertClosedManifold(m, `${label} mesh ${hash.slice(0, 8)}`);
    assert.ok(mesh.triangleCount < MAX_PART_TRIANGLES, `${label}: ${mesh.triangleCount} triangles`);
    decoded.set(hash, m);
  }
  const volume: Record<string, number> = {};
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  let triangles = 0;
  for (const part of scene.parts) {
    const mesh = decoded.get(part.mesh);
    assert.ok(mesh, `${label}: part ${part.name} references a missing mesh`);
    assert.ok(part.instances.length >= 1, `${label}: part ${part.name} has no instances`);
    const v = signedVolume(mesh);
    assert.ok(v > 0, `${label}: part ${part.name} has volume ${v} (inside out?)`);
    volume[part.name] = 0;
    for (const m of part.instances) {
      assert.equal(m.length, 16, `${label}: a transform is a 4×4 matrix`);
      volume[part.name] += v * Math.abs(linearDeterminant(m));
      const p = mesh.positions;
      for (let i = 0; i < p.length; i += 3) {
        for (let axis = 0; axis < 3; axis++) {
          const x = m[axis] * p[i] + m[axis + 4] * p[i + 1] + m[axis + 8] * p[i + 2] +
            m[axis + 12];
          if (x < min[axis]) min[axis] = x;
          if (x > max[axis]) max[axis] = x;
        }
      }
    }
    triangles += mesh.indices.length / 3 * part.instances.length;
  }
  return { volume, bbox: { min, max }, triangles };
}

function assertWithin(actual: number, [lo, hi]: Range, message: string): void {
  assert.ok(actual >= lo && actual <= hi, `${message}: ${actual} is outside [${lo}, ${hi}]`);
}

function assertClose(actual: number, expected: number, tol: number, message: string): void {
  assert.ok(
    Math.abs(actual - expected) <= tol,
    `${message}: ${actual} is not within ${tol} of ${expected}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Loading, substituting, evaluating

interface Project {
  template: Dag;
  schema: ParameterSchema;
}

async function loadProject(slug: string): Promise<Project> {
  const dir = new URL(`${slug}/`, PROJECTS);
  const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
  const schema = JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir)));
  return { template: validateDag(template), schema: validateParameterSchema(schema) };
}

/** Every parameter's value: the overrides, else the default. */
function complete(schema: ParameterSchema, overrides: Values): Values {
  return Object.fromEntries(
    schema.parameters.map((p) => [p.name, overrides[p.name] ?? p.default]),
  );
}

/** The lowest (`"min"`) or highest (`"max"`) value of every parameter; colors keep defaults. */
function extreme(schema: ParameterSchema, end: "min" | "max"): Values {
  const pick = (p: ParameterDescriptor): number | boolean | string => {
    switch (p.kind) {
      case "Int":
      case "Float":
        return end === "min" ? p.minimum! : p.maximum!;
      case "Bool":
        return end === "max";
      case "Enum":
        return end === "min" ? p.enum![0] : p.enum![p.enum!.length - 1];
      case "Color":
        return p.default;
      case "String":
        return end === "min" ? shortest(p) : longest(p);
    }
  };
  return Object.fromEntries(schema.parameters.map((p) => [p.name, pick(p)]));
}

/** A String's shortest value from its default's characters (which its pattern allows). */
function shortest(p: ParameterDescriptor): string {
  return [...(p.default as string)].slice(0, Math.max(1, p.minLength ?? 0)).join("");
}

/** A String's longest value: its default repeated up to `maxLength` characters. */
function longest(p: ParameterDescriptor): string {
  const chars = [...(p.default as string)];
  return Array.from({ length: p.maxLength! }, (_, i) => chars[i % chars.length]).join("");
}

/** Another valid value of `p`, half way from the default to the farther bound (on the step). */
function otherValue(p: ParameterDescriptor): number | boolean | string {
  switch (p.kind) {
    case "Int":
    case "Float": {
      const d = p.default as number;
      const target = p.maximum! - d >= d - p.minimum! ? (d + p.maximum!) / 2 : (d + p.minimum!) / 2;
      const step = p.step ?? (p.kind === "Int" ? 1 : 0);
      if (step === 0) return target;
      const snapped = p.minimum! + Math.round((target - p.minimum!) / step) * step;
      return Number(snapped.toFixed(9));
    }
    case "Bool":
      return !p.default;
    case "Enum":
      return p.enum!.find((choice) => choice !== p.default)!;
    case "Color":
      return p.default === "#123456" ? "#654321" : "#123456";
    case "String":
      return [...(p.default as string)].reverse().join("");
  }
}

/** One manifold-3d instance for this file (a cache of one, made on first use). */
let runtime: Promise<ManifoldRuntime> | undefined;

/** Evaluates in this thread on a runtime that counts WASM objects: none may outlive a render. */
async function evaluate(dag: Dag): Promise<Scene> {
  runtime ??= createManifoldRuntime({ trackObjects: true });
  const rt = await runtime;
  const { scene, exact } = await evaluateDagExact(dag, rt);
  assert.equal(rt.liveObjects!(), 0, "evaluation deleted every WASM object");
  exactMeshes.set(scene, exact);
  return scene;
}

async function render(project: Project, values: Values): Promise<Scene> {
  return await evaluate(substitute(project.template, project.schema, values));
}

function meshOf(scene: Scene, name: string): string {
  const part = scene.parts.find((p) => p.name === name);
  assert.ok(part, `no part ${name}`);
  return part.mesh;
}

/** Evaluates one parameter set and checks it against the example's expectation. */
async function checkValues(
  example: Example,
  project: Project,
  overrides: Values,
  label: string,
): Promise<Scene> {
  const values = complete(project.schema, overrides);
  const scene = await render(project, values);
  const measured = measureScene(scene, `${example.slug} ${label}`);
  const expected = example.expect(values);
  const message = `${example.slug} ${label}`;
  assert.deepEqual(
    scene.parts.map((p) => p.name).sort(),
    Object.keys(expected.volume).sort(),
    `${message}: part names`,
  );
  let total = 0;
  for (const [name, range] of Object.entries(expected.volume)) {
    assertWithin(measured.volume[name], range, `${message}: volume of ${name}`);
    total += measured.volume[name];
  }
  assertClose(scene.volume, total, 1e-3 * total, `${message}: scene.volume vs the meshes`);
  assert.equal(scene.triangles, measured.triangles, `${message}: scene.triangles`);
  for (let axis = 0; axis < 3; axis++) {
    const { tol: tols } = expected.bbox;
    const tol = typeof tols === "number" ? tols : tols[axis];
    assertClose(measured.bbox.min[axis], expected.bbox.min[axis], tol, `${message}: bbox min`);
    assertClose(measured.bbox.max[axis], expected.bbox.max[axis], tol, `${message}: bbox max`);
    assertClose(scene.bbox.min[axis], measured.bbox.min[axis], 1e-3, `${message}: scene.bbox`);
    assertClose(scene.bbox.max[axis], measured.bbox.max[axis], 1e-3, `${message}: scene.bbox`);
  }
  expected.check?.(scene, values);
  return scene;
}

// ---------------------------------------------------------------------------------------------
// The examples and what they must measure like

const num = (v: Values, name: string) => v[name] as number;
/** Bounds around an estimate: faceting and small features stay within these fractions. */
const around = (estimate: number, below = 0.03, above = 0.03): Range => [
  estimate * (1 - below),
  estimate * (1 + above),
];

const wallBracket: Example = {
  slug: "wall-bracket",
  mixed: [
    {
      width: 20,
      depth: 300,
      height: 60,
      thickness: 12,
      holeCount: 6,
      holeDiameter: 10,
      countersink: true,
      rounded: true,
      gussets: false,
    },
    {
      width: 120,
      depth: 60,
      height: 300,
      thickness: 3,
      holeCount: 1,
      holeDiameter: 3,
      countersink: false,
      rounded: false,
      gussets: true,
    },
  ],
  expect(v) {
    const W = num(v, "width"), D = num(v, "depth"), H = num(v, "height");
    const t = num(v, "thickness"), n = num(v, "holeCount");
    const cornerR = Math.min(W / 4, 12);
    const wallSpan = H - t, shelfSpan = D - t;
    const holeR = Math.min(
      num(v, "holeDiameter") / 2,
      W / 10,
      wallSpan / (n + 1) / 4,
      shelfSpan / (n + 1) / 4,
    );
    const csDepth = Math.min(holeR, t / 2);
    const ribT = Math.min(t, W / 5), ribLeg = 0.6 * Math.min(wallSpan, shelfSpan);
    const corners = v.rounded ? 4 * (1 - Math.PI / 4) * cornerR ** 2 * t : 0;
    const solid = W * H * t + W * D * t - W * t * t - corners +
      (v.gussets ? ribLeg * ribLeg * ribT : 0);
    const shaft = Math.PI * holeR ** 2 * t;
    const outer = holeR + csDepth;
    const cone = v.countersink
      ? Math.PI / 3 * csDepth * (holeR ** 2 + holeR * outer + outer ** 2) -
        Math.PI * holeR ** 2 * csDepth
      : 0;
    const removedMost = 2 * n * (shaft + cone);
    const removedLeast = 2 * n * (shaft + cone * 0.5) * facet(32);
    return {
      volume: { Bracket: [0.99 * (solid - removedMost), 1.005 * (solid - removedLeast)] },
      bbox: { min: [0, 0, 0], max: [W, D, H], tol: 1e-3 },
    };
  },
  hashes: [
    {
      name: "a color change keeps the mesh",
      change: { color: "#222222" },
      changed: [],
      same: ["Bracket"],
    },
    {
      name: "more holes change the mesh",
      change: { holeCount: 4 },
      changed: ["Bracket"],
      same: [],
    },
  ],
};

const storageBox: Example = {
  slug: "storage-box",
  mixed: [
    {
      width: 300,
      depth: 40,
      height: 20,
      wall: 10,
      cornerRadius: 20,
      lidHeight: 40,
      lidClearance: 0,
      fingerNotch: true,
    },
    {
      width: 40,
      depth: 300,
      height: 200,
      wall: 10,
      cornerRadius: 20,
      lidHeight: 5,
      lidClearance: 1,
      fingerNotch: true,
    },
  ],
  expect(v) {
    const W = num(v, "width"), D = num(v, "depth"), H = num(v, "height");
    const c = num(v, "lidClearance"), L = num(v, "lidHeight");
    const minSide = Math.min(W, D);
    const w = Math.min(num(v, "wall"), minSide / 6, H / 4);
    const R = Math.min(num(v, "cornerRadius"), minSide / 2 - 1);
    const area = (x: number, y: number, r: number) => x * y - (4 - Math.PI) * r * r;
    const innerW = W - 2 * w, innerD = D - 2 * w, innerR = Math.max(R - w, 0);
    const box = area(W, D, R) * H - area(innerW, innerD, innerR) * (H - w);
    const notchR = Math.min(W / 5, (H - w) / 3, 12);
    const notchMost = v.fingerNotch ? Math.PI / 2 * notchR ** 2 * (w + R) : 0;
    const plate = Math.min(Math.max(w, 1.6), L / 2);
    const lipDepth = Math.min(L - plate, H - w - 1);
    const lipW = innerW - 2 * c, lipD = innerD - 2 * c, lipR = Math.max(innerR - c, 0);
    const lid = area(W, D, R) * plate +
      (area(lipW, lipD, lipR) - area(lipW - 2 * w, lipD - 2 * w, Math.max(lipR - w, 0))) *
        lipDepth;
    return {
      volume: { Box: [0.98 * (box - notchMost), 1.01 * box], Lid: around(lid, 0.02, 0.01) },
      bbox: { min: [-W / 2, -D / 2, 0], max: [W / 2, D / 2, H + plate], tol: 1e-3 },
    };
  },
  hashes: [
    {
      name: "a color change keeps both meshes",
      change: { boxColor: "#222222", lidColor: "#f2f2f2" },
      changed: [],
      same: ["Box", "Lid"],
    },
    {
      name: "lid height changes only the lid",
      change: { lidHeight: 20 },
      changed: ["Lid"],
      same: ["Box"],
    },
    {
      name: "clearance changes only the lid",
      change: { lidClearance: 0.8 },
      changed: ["Lid"],
      same: ["Box"],
    },
    {
      name: "the finger notch changes only the box",
      change: { fingerNotch: false },
      changed: ["Box"],
      same: ["Lid"],
    },
  ],
};

const spurGear: Example = {
  slug: "spur-gear",
  mixed: [
    {
      teeth: 80,
      module: 1,
      thickness: 30,
      hubDiameter: 60,
      hubHeight: 0,
      boreDiameter: 30,
      dFlat: true,
    },
    // The thinnest hub on the widest few teeth: the hub must be exactly 0.5 tall.
    {
      teeth: 10,
      module: 4,
      thickness: 2,
      hubDiameter: 60,
      hubHeight: 0.5,
      boreDiameter: 6.5,
      dFlat: true,
    },
  ],
  expect(v) {
    const z = num(v, "teeth"), m = num(v, "module"), t = num(v, "thickness");
    const hubH = num(v, "hubHeight");
    const pitchR = m * z / 2, tipR = pitchR + m, rootR = pitchR - 1.25 * m;
    const rootHalf = Math.min(1.24 * m, 2.8274 * rootR / z), tipHalf = 0.34 * rootHalf;
    const hubR = Math.min(num(v, "hubDiameter") / 2, rootR);
    const boreR = Math.min(num(v, "boreDiameter") / 2, 0.7 * hubR);
    const disk = Math.PI * rootR ** 2 * t * facet(96);
    // Per tooth: the trapezoid above the root radius, plus the sliver of its rectangular foot
    // between the root circle and the line x = root radius.
    const sliver = 2 * (rootR * rootHalf -
      (rootHalf / 2 * Math.sqrt(rootR ** 2 - rootHalf ** 2) +
        rootR ** 2 / 2 * Math.asin(rootHalf / rootR)));
    const teeth = z * ((rootHalf + tipHalf) * (tipR - rootR) + sliver) * t;
    const hub = hubH > 0 ? Math.PI * hubR ** 2 * hubH * facet(64) : 0;
    // A D bore keeps the circular segment beyond 0.7·r: 0.2955·r² of the circle's π·r².
    const boreArea = (Math.PI - (v.dFlat ? 0.2955 : 0)) * boreR ** 2 * facet(48);
    const volume = disk + teeth + hub - boreArea * (t + hubH);
    const reach = Math.hypot(tipR, tipHalf);
    return {
      volume: { Gear: around(volume, 0.015, 0.015) },
      bbox: {
        min: [-tipR, -tipR, 0],
        max: [tipR, tipR, t + hubH],
        tol: [reach - rootR, reach - rootR, 1e-3],
      },
      check(scene) {
        // Tooth 0 points along +X, so the box reaches the tip circle exactly there.
        assertClose(scene.bbox.max[0], tipR, 1e-3 * tipR, "spur-gear: tip radius");
        for (let axis = 0; axis < 2; axis++) {
          assert.ok(scene.bbox.max[axis] <= reach + 1e-3 && -scene.bbox.min[axis] <= reach + 1e-3);
        }
      },
    };
  },
  hashes: [
    {
      name: "a color change keeps the mesh",
      change: { color: "#222222" },
      changed: [],
      same: ["Gear"],
    },
    { name: "the bore changes the mesh", change: { boreDiameter: 8 }, changed: ["Gear"], same: [] },
    {
      name: "the tooth count changes the mesh",
      change: { teeth: 30 },
      changed: ["Gear"],
      same: [],
    },
  ],
};

/** The vase's profile: smoothstep sections through base, belly, neck and lip (see its README). */
function vaseRadius(v: Values, s: number): number {
  const smooth = (u: number) => u * u * (3 - 2 * u);
  const sections: [string, string, number, number][] = [
    ["baseRadius", "bellyRadius", 0, 0.4],
    ["bellyRadius", "neckRadius", 0.4, 0.85],
    ["neckRadius", "lipRadius", 0.85, 1],
  ];
  for (const [a, b, s0, s1] of sections) {
    if (s <= s1) return num(v, a) + (num(v, b) - num(v, a)) * smooth((s - s0) / (s1 - s0));
  }
  return num(v, "lipRadius");
}

const vase: Example = {
  slug: "vase",
  mixed: [
    {
      height: 80,
      baseRadius: 80,
      bellyRadius: 20,
      neckRadius: 80,
      lipRadius: 10,
      wall: 6,
      style: "faceted",
      smoothness: 24,
    },
    // Steepest flanks: the wall leans most, so the cavity comes closest to the outside.
    {
      height: 80,
      baseRadius: 20,
      bellyRadius: 120,
      neckRadius: 10,
      lipRadius: 90,
      wall: 6,
      style: "round",
      smoothness: 96,
    },
  ],
  expect(v) {
    const H = num(v, "height"), wall = num(v, "wall"), floor = 1.5 * wall;
    const n = v.style === "round" ? num(v, "smoothness") : v.style === "faceted" ? 12 : 6;
    const steps = 4000;
    let outer = 0, inner = 0;
    for (let i = 0; i < steps; i++) {
      const r = vaseRadius(v, (i + 0.5) / steps);
      outer += r * r;
      inner += (r - wall) ** 2;
    }
    const curveH = H - floor;
    const base = num(v, "baseRadius");
    const volume = facet(n) * Math.PI *
      (base * base * floor + (outer - inner) / steps * curveH);
    const maxR = Math.max(
      ...["baseRadius", "bellyRadius", "neckRadius", "lipRadius"].map((k) => num(v, k)),
    );
    return {
      volume: { Vase: around(volume, 0.01, 0.01) },
      bbox: {
        min: [-maxR, -maxR, 0],
        max: [maxR, maxR, H],
        tol: maxR * (1 - Math.cos(Math.PI / n)) + 1e-3,
      },
    };
  },
  hashes: [
    {
      name: "a color change keeps the mesh",
      change: { color: "#222222" },
      changed: [],
      same: ["Vase"],
    },
    {
      name: "the style changes the mesh",
      change: { style: "hexagonal" },
      changed: ["Vase"],
      same: [],
    },
    {
      name: "smoothness does not matter to a faceted vase",
      base: { style: "faceted" },
      change: { smoothness: 32 },
      changed: [],
      same: ["Vase"],
    },
  ],
};

const studPlate: Example = {
  slug: "stud-plate",
  mixed: [
    {
      columns: 32,
      rows: 1,
      pitch: 6,
      plateThickness: 10,
      studDiameter: 12,
      studHeight: 0.5,
      hollowStuds: true,
    },
    {
      columns: 1,
      rows: 32,
      pitch: 16,
      plateThickness: 1,
      studDiameter: 2,
      studHeight: 5,
      hollowStuds: false,
    },
  ],
  expect(v) {
    const cols = num(v, "columns"), rows = num(v, "rows"), pitch = num(v, "pitch");
    const t = num(v, "plateThickness"), studH = num(v, "studHeight");
    const studR = Math.min(num(v, "studDiameter") / 2, 0.4 * pitch);
    const stud = Math.PI * studR ** 2 * studH * facet(32) * (v.hollowStuds ? 1 - 0.36 : 1);
    return {
      volume: {
        Plate: around(cols * rows * pitch * pitch * t, 1e-4, 1e-4),
        Studs: around(cols * rows * stud, 1e-3, 1e-3),
      },
      bbox: { min: [0, 0, 0], max: [cols * pitch, rows * pitch, t + studH], tol: 1e-3 },
      check(scene) {
        const studs = scene.parts.find((p) => p.name === "Studs")!;
        assert.equal(studs.instances.length, cols * rows, "one instance per stud");
        assert.equal(scene.meshes[studs.mesh].triangleCount * cols * rows + 12, scene.triangles);
      },
    };
  },
  hashes: [
    {
      name: "more rows change the plate, not the stud mesh",
      change: { rows: 6 },
      changed: ["Plate"],
      same: ["Studs"],
    },
    {
      name: "the stud diameter changes only the studs",
      change: { studDiameter: 4 },
      changed: ["Studs"],
      same: ["Plate"],
    },
    {
      name: "colors keep both meshes",
      change: { plateColor: "#a0a5a9", studColor: "#f2cd37" },
      changed: [],
      same: ["Plate", "Studs"],
    },
  ],
};

const nameTag: Example = {
  slug: "tag-keychain",
  mixed: [
    {
      name: "WWWWWWWWWWWWWWWW",
      style: "engraved",
      textSize: 20,
      depth: 2,
      length: 40,
      height: 15,
      thickness: 2,
      holeDiameter: 8,
    },
    {
      name: "i",
      style: "embossed",
      textSize: 4,
      depth: 2,
      length: 120,
      height: 40,
      thickness: 6,
      holeDiameter: 3,
    },
  ],
  expect(v) {
    const L = num(v, "length"), H = num(v, "height"), T = num(v, "thickness");
    const r = 0.3 * H, holeR = num(v, "holeDiameter") / 2;
    const relief = Math.min(num(v, "depth"), T / 2);
    const engraved = v.style === "engraved";
    const plate = (L * H - (4 - Math.PI) * r * r - Math.PI * holeR ** 2 * facet(32)) * T;
    // The lettering lies within its area (right of the hole, 3 mm / 2 mm in from the edges).
    const area = (L - 3 - (6 + 2 * holeR)) * (H - 4) * relief;
    return {
      volume: {
        Tag: engraved ? [plate - area, plate * (1 - 1e-6)] : around(plate, 2e-3, 2e-3),
        Lettering: [1e-3, area],
      },
      bbox: { min: [0, 0, 0], max: [L, H, engraved ? T : T + relief], tol: 1e-3 },
      check(scene) {
        // Engraved, the lettering is the inlay of the cut: together they are the whole tag.
        if (engraved) assertClose(scene.volume, plate, 2e-3 * plate, "tag + inlay");
      },
    };
  },
  hashes: [
    {
      name: "colors keep both meshes",
      change: { tagColor: "#e63946", textColor: "#222222" },
      changed: [],
      same: ["Tag", "Lettering"],
    },
    {
      name: "embossed, another name changes only the lettering",
      change: { name: "Grace" },
      changed: ["Lettering"],
      same: ["Tag"],
    },
    {
      name: "engraved, another name changes the tag and the inlay",
      base: { style: "engraved" },
      change: { name: "Grace" },
      changed: ["Tag", "Lettering"],
      same: [],
    },
    {
      name: "the ring hole changes the tag and moves the lettering",
      change: { holeDiameter: 7 },
      changed: ["Tag", "Lettering"],
      same: [],
    },
  ],
};

const EXAMPLES: Example[] = [wallBracket, storageBox, spurGear, vase, studPlate, nameTag];

// ---------------------------------------------------------------------------------------------

Deno.test("examples - every project folder is covered here", async () => {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(PROJECTS)) if (entry.isDirectory) folders.push(entry.name);
  // Python-mode examples (design.py, no template) are covered by tests/design/python_mode_test.ts.
  const templated = [];
  for (const slug of folders) {
    try {
      await Deno.stat(new URL(`${slug}/template.dag.json`, PROJECTS));
      templated.push(slug);
    } catch {
      await Deno.stat(new URL(`${slug}/design.py`, PROJECTS));
    }
  }
  assert.deepEqual(templated.sort(), EXAMPLES.map((e) => e.slug).sort());
  for (const slug of folders) {
    const readme = await Deno.readTextFile(new URL(`${slug}/README.md`, PROJECTS));
    assert.ok(readme.length > 200, `${slug} has a README`);
  }
});

for (const example of EXAMPLES) {
  Deno.test(`examples - ${example.slug} validates, and every parameter is in the template`, async () => {
    const { template, schema } = await loadProject(example.slug);
    const used = new Set(
      Object.values(template.nodes).flatMap((n) => n.op === "ParameterInput" ? [n.parameter] : []),
    );
    assert.deepEqual([...used].sort(), schema.parameters.map((p) => p.name).sort());
    for (const p of schema.parameters) {
      assert.ok(p.label !== p.name && p.description && p.group, `${p.name} has display text`);
      if (p.kind === "Float") assert.equal(p.unit, "mm", `${p.name} is in mm`);
    }
    for (const name of example.mixed.flatMap((values) => Object.keys(values))) {
      assert.ok(used.has(name), `mixed value ${name} is a parameter`);
    }
  });

  Deno.test(`examples - ${example.slug} is closed and plausible at defaults and extremes`, async (t) => {
    const project = await loadProject(example.slug);
    const sets: [string, Values][] = [
      ["defaults", {}],
      ["minimums", extreme(project.schema, "min")],
      ["maximums", extreme(project.schema, "max")],
      ...example.mixed.map((values, i): [string, Values] => [`mixed ${i + 1}`, values]),
    ];
    for (const [label, values] of sets) {
      await t.step(label, async () => {
        await checkValues(example, project, values, label);
      });
    }
  });

  Deno.test(`examples - ${example.slug} mesh hashes follow the parameters`, async (t) => {
    const project = await loadProject(example.slug);
    for (const c of example.hashes) {
      await t.step(c.name, async () => {
        const base = complete(project.schema, c.base ?? {});
        const before = await render(project, base);
        const after = await render(project, { ...base, ...c.change });
        for (const name of c.changed) {
          assert.notEqual(meshOf(after, name), meshOf(before, name), `${name} should change`);
        }
        for (const name of c.same) {
          assert.equal(meshOf(after, name), meshOf(before, name), `${name} should not change`);
        }
      });
    }
  });

  Deno.test(`examples - ${example.slug} every parameter changes the scene`, async () => {
    const project = await loadProject(example.slug);
    const defaults = complete(project.schema, {});
    const sceneKey = (s: Scene) => JSON.stringify(s.parts);
    const before = sceneKey(await render(project, defaults));
    for (const p of project.schema.parameters) {
      const value = otherValue(p);
      const after = sceneKey(await render(project, { ...defaults, [p.name]: value }));
      assert.notEqual(after, before, `${p.name} = ${JSON.stringify(value)} changes nothing`);
    }
  });
}
