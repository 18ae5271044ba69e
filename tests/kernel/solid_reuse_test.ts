/**
 * Reuse between renders (lib/kernel/solid_cache.ts, subtree_keys.ts, dag_walk.ts): a render that
 * changes some parameters takes the solids the others alone decide from a worker's cache. What
 * must hold: the scene is the plain walk's — parts, box, triangles, volume, effective values and
 * the surface itself, triangle for triangle — whatever was reused; a solid is reused only for the
 * same template shape, the same reached values and the same limits; and workers reuse across jobs.
 */
import assert from "node:assert/strict";
import type { Dag } from "@/lib/dag/dag_types.ts";
import {
  type ParameterDescriptor,
  type ParameterSchema,
  validateParameterSchema,
} from "@/lib/dag/parameter_schema.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { readExamples } from "@/lib/hub/demo_seed.ts";
import { EvalError } from "@/lib/kernel/eval_errors.ts";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "@/lib/kernel/eval_limits.ts";
import { evaluateDagExact, type EvaluationReuse, type ExactMesh } from "@/lib/kernel/evaluate.ts";
import { createManifoldRuntime, type ManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import { SolidCache } from "@/lib/kernel/solid_cache.ts";
import { SubtreeKeys } from "@/lib/kernel/subtree_keys.ts";
import { WorkerPool } from "@/lib/kernel/worker_pool.ts";

type Values = Record<string, number | boolean | string>;

interface Example {
  name: string;
  schema: ParameterSchema;
  finish(values: Values): Dag;
}

/** The template examples of `examples/projects/` (python-mode ones have no template). */
async function templateExamples(): Promise<Example[]> {
  return (await readExamples()).filter((e) => e.template !== null).map((e) => {
    const template = e.template as Dag;
    const schema = validateParameterSchema(e.schema);
    return { name: e.slug, schema, finish: (values) => substitute(template, schema, values) };
  });
}

async function spurGear(): Promise<Example> {
  return (await templateExamples()).find((e) => e.name === "spur-gear")!;
}

/** Up to two valid values other than the default, for a one-parameter change. */
function alternatives(p: ParameterDescriptor): (number | boolean | string)[] {
  switch (p.kind) {
    case "Bool":
      return [!p.default];
    case "Enum":
      return p.enum!.filter((x) => x !== p.default).slice(0, 2);
    case "Color":
      return ["#123456", "#fedcba"];
    case "String":
      return [];
    default: {
      const d = p.default as number;
      const step = p.step ?? (p.kind === "Int" ? 1 : 0.5);
      const inRange = (v: number) => (p.minimum ?? -Infinity) <= v && v <= (p.maximum ?? Infinity);
      return [d + step, d - step, d + 2 * step].filter(inRange).slice(0, 2);
    }
  }
}

/** Each triangle as its three corners' coordinates, starting at the least, sorted: the surface
 * whatever the order of vertices and triangles. */
function surface({ positions, indices }: ExactMesh): string[] {
  const corner = (i: number) =>
    `${positions[3 * i]},${positions[3 * i + 1]},${positions[3 * i + 2]}`;
  const out: string[] = [];
  for (let t = 0; t < indices.length; t += 3) {
    const c = [corner(indices[t]), corner(indices[t + 1]), corner(indices[t + 2])];
    const first = c.indexOf([...c].sort()[0]);
    out.push([0, 1, 2].map((k) => c[(first + k) % 3]).join(" "));
  }
  return out.sort();
}

/** Everything a scene says but the names of its meshes, and each part's surface. */
function meaning(result: { scene: Scene; exact: Map<string, ExactMesh> }) {
  const { scene, exact } = result;
  return {
    parts: scene.parts.map(({ mesh, ...rest }) => ({
      ...rest,
      surface: surface(exact.get(mesh)!),
    })),
    bbox: scene.bbox,
    triangles: scene.triangles,
    volume: scene.volume,
    effective: scene.effective,
  };
}

function reuseOn(cache = new SolidCache(), shape = "shape-a"): EvaluationReuse {
  // minMs 0: every solid is offered, whatever this machine's speed.
  return { cache, keys: new SubtreeKeys(), shape, minMs: 0 };
}

let runtime: ManifoldRuntime | undefined;
async function rt(): Promise<ManifoldRuntime> {
  return runtime ??= await createManifoldRuntime();
}

Deno.test("reuse - every example's one-parameter changes give the plain walk's scene", async (t) => {
  for (const example of await templateExamples()) {
    await t.step(example.name, async () => {
      const defaults: Values = {};
      for (const p of example.schema.parameters) defaults[p.name] = p.default;
      // Room for every solid of the sweep: the defaults' stay kept, as after a shopper's first
      // render (a full cache keeps only what it sees twice; solid_cache_test.ts).
      const reuse = reuseOn(new SolidCache({ maxTriangles: 1_000_000, maxEntries: 10_000 }));
      let hits = 0;
      for (const p of example.schema.parameters) {
        for (const value of alternatives(p)) {
          await evaluateDagExact(example.finish(defaults), await rt(), undefined, { reuse });
          const dag = example.finish({ ...defaults, [p.name]: value });
          const before = reuse.cache.stats().hits;
          const reused = await evaluateDagExact(dag, await rt(), undefined, { reuse });
          hits += reuse.cache.stats().hits - before;
          const plain = await evaluateDagExact(dag, await rt());
          assert.deepEqual(meaning(reused), meaning(plain), `${p.name} = ${value}`);
        }
      }
      assert.ok(hits > 0, `${example.name}: some change reused a solid`);
    });
  }
});

Deno.test("reuse - a color change reuses the whole gear and keeps its effective values", async () => {
  const gear = await spurGear();
  const reuse = reuseOn();
  // A hub wider than the root circle allows: the scene reports the effective diameter.
  const first = await evaluateDagExact(
    gear.finish({ hubDiameter: 60, color: "#222222" }),
    await rt(),
    undefined,
    { reuse },
  );
  assert.ok(first.scene.effective?.hubDiameter, "the first render reports the bounded hub");
  const before = reuse.cache.stats().hits;
  const dag = gear.finish({ hubDiameter: 60, color: "#3a7d44" });
  const recolored = await evaluateDagExact(dag, await rt(), undefined, { reuse });
  assert.equal(reuse.cache.stats().hits - before, 1, "one hit: the gear's body, nothing below it");
  // Nothing but the color changed, so even the bytes are the plain walk's.
  assert.deepEqual(recolored.scene, (await evaluateDagExact(dag, await rt())).scene);
  assert.equal(recolored.scene.parts[0].mesh, first.scene.parts[0].mesh);
});

Deno.test("reuse - another template shape or other limits never share a solid", async () => {
  const gear = await spurGear();
  const cache = new SolidCache();
  const keys = new SubtreeKeys();
  const on = (shape: string): EvaluationReuse => ({ cache, keys, shape, minMs: 0 });
  await evaluateDagExact(gear.finish({}), await rt(), undefined, { reuse: on("shape-a") });
  // Shape b's nodes are looked up from now on (its render kept them), with other values.
  await evaluateDagExact(gear.finish({ teeth: 30 }), await rt(), undefined, {
    reuse: on("shape-b"),
  });
  const hits = cache.stats().hits;

  // Shape a's values under shape b: the same node ids and values, and nothing kept for them.
  await evaluateDagExact(gear.finish({ color: "#123456" }), await rt(), undefined, {
    reuse: on("shape-b"),
  });
  assert.equal(cache.stats().hits, hits);

  // Limits the gear's 96-segment root disk breaks: a hit would have hidden the failure.
  const strict: EvalLimits = { ...DEFAULT_EVAL_LIMITS, maxSegments: 64 };
  await assert.rejects(
    evaluateDagExact(gear.finish({ color: "#123456" }), await rt(), strict, {
      reuse: on("shape-a"),
    }),
    (err) => err instanceof EvalError && err.reason === "out_of_range",
  );
  assert.equal(cache.stats().hits, hits);
  // The same values under shape a's own limits do reuse: the misses above were the key's.
  await evaluateDagExact(gear.finish({ color: "#123456" }), await rt(), undefined, {
    reuse: on("shape-a"),
  });
  assert.ok(cache.stats().hits > hits);
});

Deno.test("reuse - a pool's workers reuse solids across jobs, renders only", async () => {
  const gear = await spurGear();
  const counted: number[] = []; // what /metrics counts (kernel_reused_solids_total)
  const pool = new WorkerPool({ size: 1, onReused: (count) => counted.push(count) });
  const body = (color: string) => JSON.stringify({ dag: gear.finish({ color }) });
  try {
    const first = await pool.evaluate({ dagIn: body("#222222"), shape: "gear" });
    assert.equal(pool.stats().reusedNodes, 0);
    const second = await pool.evaluate({ dagIn: body("#3a7d44"), shape: "gear" });
    assert.ok(pool.stats().reusedNodes >= 1, "the second render took the body from the cache");
    assert.equal(second.parts[0].mesh, first.parts[0].mesh);
    assert.equal(second.parts[0].color, "#3a7d44");

    // Without a template shape (python mode) nothing is looked up.
    const reused = pool.stats().reusedNodes;
    await pool.evaluate({ dagIn: body("#f2f2f2") });
    // An export builds its file from a fresh walk (same configuration, same bytes).
    await pool.exportFile({ dagIn: body("#222222"), shape: "gear" }, "stl", "Gear");
    assert.equal(pool.stats().reusedNodes, reused);
    assert.equal(counted.reduce((a, b) => a + b, 0), reused);
  } finally {
    await pool.close();
  }

  const off = new WorkerPool({ size: 1, reuseTriangles: 0 });
  try {
    await off.evaluate({ dagIn: body("#222222"), shape: "gear" });
    await off.evaluate({ dagIn: body("#3a7d44"), shape: "gear" });
    assert.equal(off.stats().reusedNodes, 0, "RENDER_REUSE_TRIANGLES=0 keeps nothing");
  } finally {
    await off.close();
  }
});

Deno.test("reuse - a pool sends a template's render to the idle worker that last rendered it", async () => {
  const gear = await spurGear();
  const body = (color: string) => JSON.stringify({ dag: gear.finish({ color }) });
  const pool = new WorkerPool({ size: 2 });
  try {
    await pool.warm();
    // The first worker takes a job without a template; the gear goes to the second, which keeps
    // the gear's solids.
    await Promise.all([
      pool.evaluate({ dagIn: body("#f2f2f2") }),
      pool.evaluate({ dagIn: body("#222222"), shape: "gear" }),
    ]);
    assert.equal(pool.stats().reusedNodes, 0);
    // Both are idle now: the next change goes to the second again, and reuses the body there.
    await pool.evaluate({ dagIn: body("#3a7d44"), shape: "gear" });
    assert.ok(pool.stats().reusedNodes >= 1, "the render went to the worker whose cache is warm");
  } finally {
    await pool.close();
  }
});
