/**
 * `scene.effective`: the parameters a DAG limited in one evaluation (lib/kernel/effective_values.ts),
 * on small DAGs evaluated by the real kernel and on the spur-gear example, and checked against the
 * geometry the kernel built (the limited value is the one the mesh shows).
 */
import assert from "node:assert/strict";
import type { Dag, DagNode } from "@/lib/dag/dag_types.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";

type Nodes = Record<string, unknown>;

/** One cube whose edge is node `size`, with parameter slots `w` (value `w`) and `k` (value `k`). */
function cubeDag(nodes: Nodes, values: { w: number; k?: number }): Dag {
  return {
    dag: 1,
    nodes: {
      w: { op: "ParameterInput", parameter: "w", fallback: 10, value: values.w },
      k: { op: "ParameterInput", parameter: "k", fallback: 10, value: values.k ?? 10 },
      ...nodes,
      shape: { op: "box", size: [{ ref: "size" }, 5, 5] },
      part: { op: "part", name: "p", color: "#8899aa", child: { ref: "shape" } },
      out: { op: "assembly", parts: [{ ref: "part" }] },
    } as Record<string, DagNode>,
    output: "out",
  };
}

const width = (scene: { bbox: { min: number[]; max: number[] } }) =>
  Math.round((scene.bbox.max[0] - scene.bbox.min[0]) * 1000) / 1000;

Deno.test("effective values - a min over an affine chain reports the inverted bound", async () => {
  // size = min(w / 2 + 1, k): w = 30 asks for 16, k = 10 holds it to 10, so w acts as 18.
  const dag = cubeDag({
    half: { op: "div", a: { ref: "w" }, b: 2 },
    plus: { op: "add", args: [{ ref: "half" }, 1] },
    size: { op: "min", args: [{ ref: "plus" }, { ref: "k" }] },
  }, { w: 30 });
  const scene = await evaluateDag(dag);
  assert.deepEqual(scene.effective, {
    w: { value: 18, requested: 30, bound: "max", by: ["k"] },
  });
  assert.equal(width(scene), 10); // the geometry shows the bound: 18 / 2 + 1
  assert.equal(scene.effective!.w.value / 2 + 1, width(scene));
});

Deno.test("effective values - only the argument the bound cut is reported", async () => {
  // min(w, k) with w = 4 under k = 10: w acts as given, and k is the one held down (to w).
  const dag = cubeDag({
    size: { op: "min", args: [{ ref: "w" }, { ref: "k" }] },
  }, { w: 4 });
  const scene = await evaluateDag(dag);
  assert.deepEqual(scene.effective, { k: { value: 4, requested: 10, bound: "max", by: ["w"] } });
  assert.equal(width(scene), 4);
  const open = await evaluateDag(cubeDag({ size: { op: "min", args: [{ ref: "w" }, 50] } }, {
    w: 4,
  }));
  assert.equal(open.effective, undefined);
});

Deno.test("effective values - max, clamp and a negative chain give the right direction", async (t) => {
  await t.step("max with a literal: held up, by nothing", async () => {
    const scene = await evaluateDag(cubeDag({
      size: { op: "max", args: [{ ref: "w" }, 3] },
    }, { w: 1 }));
    assert.deepEqual(scene.effective, { w: { value: 3, requested: 1, bound: "min", by: [] } });
    assert.equal(width(scene), 3);
  });
  await t.step("clamp above its max", async () => {
    const scene = await evaluateDag(cubeDag({
      double: { op: "mul", args: [{ ref: "w" }, 2] },
      size: { op: "clamp", value: { ref: "double" }, min: 1, max: { ref: "k" } },
    }, { w: 9, k: 12 }));
    assert.deepEqual(scene.effective, { w: { value: 6, requested: 9, bound: "max", by: ["k"] } });
    assert.equal(width(scene), 12);
  });
  await t.step(
    "20 − w under a max: a lower bound on the chain is an upper bound on w",
    async () => {
      const scene = await evaluateDag(cubeDag({
        rest: { op: "sub", a: 20, b: { ref: "w" } },
        size: { op: "max", args: [{ ref: "rest" }, 4] },
      }, { w: 18 }));
      assert.deepEqual(scene.effective, { w: { value: 16, requested: 18, bound: "max", by: [] } });
      assert.equal(width(scene), 4);
    },
  );
});

Deno.test("effective values - a parameter also used unbounded elsewhere is not reported", async () => {
  // w is bounded in `size` but also drives the cube's depth directly: no single value is true.
  const dag = cubeDag({
    size: { op: "min", args: [{ ref: "w" }, { ref: "k" }] },
  }, { w: 30 });
  (dag.nodes.shape as unknown as { size: unknown[] }).size[1] = { ref: "w" };
  const scene = await evaluateDag(dag);
  assert.equal(scene.effective, undefined);
  assert.equal(width(scene), 10);
});

Deno.test("effective values - a product of two parameters is not an affine chain", async () => {
  const dag = cubeDag({
    area: { op: "mul", args: [{ ref: "w" }, { ref: "k" }] },
    size: { op: "min", args: [{ ref: "area" }, 7] },
  }, { w: 3, k: 4 });
  const scene = await evaluateDag(dag);
  assert.equal(scene.effective, undefined);
});

Deno.test("effective values - the spur gear's hub is held to its root diameter", async () => {
  const dir = new URL("../../examples/projects/spur-gear/", import.meta.url);
  const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
  const schema = validateParameterSchema(
    JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
  );
  const defaults = await evaluateDag(substitute(template, schema, {}));
  assert.equal(defaults.effective, undefined);
  // 24 teeth at module 2: root radius 24 − 2.5 = 21.5, so the hub is at most 43 mm across.
  const wide = await evaluateDag(substitute(template, schema, { hubDiameter: 60 }));
  assert.deepEqual(wide.effective, {
    hubDiameter: { value: 43, requested: 60, bound: "max", by: ["module", "teeth"] },
  });
  // 10 teeth: the hub is held to 15 mm and the bore to 70 % of that hub.
  const small = await evaluateDag(
    substitute(template, schema, { teeth: 10, hubDiameter: 60, boreDiameter: 30 }),
  );
  assert.deepEqual(small.effective?.hubDiameter, {
    value: 15,
    requested: 60,
    bound: "max",
    by: ["module", "teeth"],
  });
  assert.equal(small.effective?.boreDiameter.value, 10.5);
  assert.equal(small.effective?.boreDiameter.bound, "max");
  assert.deepEqual(small.effective?.boreDiameter.by.toSorted(), ["hubDiameter", "module", "teeth"]);
  // `module` is bounded inside the tooth profile but also sizes the whole gear: not reported.
  assert.equal(small.effective?.module, undefined);
});
