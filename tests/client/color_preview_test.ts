/**
 * Instant color changes (lib/client/color_preview.ts): which Color parameters only color parts, on
 * the published examples and on templates built to defeat it, and the preview a color-only change
 * gets (same meshes, new colors) or does not get.
 */
import assert from "node:assert/strict";
import { colorRoutes, previewColors } from "@/lib/client/color_preview.ts";
import type { RenderResult } from "@/lib/client/render_result.ts";
import { drawsTheSame } from "@/lib/client/same_picture.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { type ParameterSchema, validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { readExamples } from "@/lib/hub/demo_seed.ts";

const examples = new Map(
  (await readExamples()).map((e) => [e.slug, e]),
);

function routesOf(slug: string): Record<string, string[]> {
  const e = examples.get(slug)!;
  const routes = colorRoutes(e.template as Dag, validateParameterSchema(e.schema));
  return Object.fromEntries([...routes].map(([p, names]) => [p, [...names].sort()]));
}

Deno.test("color preview - the examples' colors route to their parts", () => {
  assert.deepEqual(routesOf("spur-gear"), { color: ["Gear"] });
  assert.deepEqual(routesOf("storage-box"), { boxColor: ["Box"], lidColor: ["Lid"] });
  assert.deepEqual(routesOf("stud-plate"), { plateColor: ["Plate"], studColor: ["Studs"] });
  for (const [slug, e] of examples) {
    if (!e.template) continue;
    const schema = validateParameterSchema(e.schema);
    const routed = new Set(colorRoutes(e.template as Dag, schema).keys());
    const colors = schema.parameters.filter((p) => p.kind === "Color").map((p) => p.name);
    for (const name of routed) assert.ok(colors.includes(name), `${slug}: ${name} is a Color`);
  }
});

/** A two-part template: `a` colored by `c1`, `b` by `b` (or as `patch` says). */
function template(patch: Record<string, Record<string, unknown>> = {}): Dag {
  const nodes: Record<string, Record<string, unknown>> = {
    c1: { op: "ParameterInput", parameter: "c1", fallback: "#111111" },
    c2: { op: "ParameterInput", parameter: "c2", fallback: "#222222" },
    w: { op: "ParameterInput", parameter: "w", fallback: 10 },
    box: { op: "box", size: [{ ref: "w" }, 10, 10] },
    a: { op: "part", child: { ref: "box" }, name: "A", color: { ref: "c1" } },
    b: { op: "part", child: { ref: "box" }, name: "B", color: { ref: "c2" } },
    out: { op: "assembly", parts: [{ ref: "a" }, { ref: "b" }] },
  };
  for (const [id, node] of Object.entries(patch)) nodes[id] = { ...nodes[id], ...node };
  return { dag: 1, nodes, output: "out" } as unknown as Dag;
}

const SCHEMA: ParameterSchema = {
  parameters: [
    { name: "c1", kind: "Color", default: "#111111", label: "c1" },
    { name: "c2", kind: "Color", default: "#222222", label: "c2" },
    { name: "w", kind: "Float", default: 10, minimum: 1, maximum: 100, label: "w" },
  ],
} as unknown as ParameterSchema;

function routed(dag: Dag): Record<string, string[]> {
  return Object.fromEntries(
    [...colorRoutes(dag, SCHEMA)].map(([p, names]) => [p, [...names].sort()]),
  );
}

Deno.test("color preview - only colors that reach nothing but part colors are routed", () => {
  assert.deepEqual(routed(template()), { c1: ["A"], c2: ["B"] });
  // c1 also sizes the box (through any member of any node): no route for it.
  assert.deepEqual(
    routed(template({ box: { size: [{ ref: "w" }, { ref: "c1" }, 10] } })),
    { c2: ["B"] },
  );
  // c2 picks a branch: no route.
  assert.deepEqual(
    routed(template({ sel: { op: "select", cond: { ref: "c2" }, then: 1, else: 2 } })),
    { c1: ["A"] },
  );
  // A number parameter is never routed, even as a color (the schema says what is a Color).
  assert.deepEqual(routed(template({ b: { color: { ref: "w" } } })), { c1: ["A"] });
  // Two parts named "A" colored from different places: "A" gets no preview.
  assert.deepEqual(routed(template({ b: { name: "A" } })), {});
  assert.deepEqual(routed(template({ b: { color: "#333333" } })), { c1: ["A"] });
  assert.deepEqual(routed(template({ b: { name: "A", color: "#333333" } })), {});
  // Two parts named "A" both colored by c1: one route.
  assert.deepEqual(routed(template({ b: { name: "A", color: { ref: "c1" } } })), { c1: ["A"] });
  // A computed part name could be any name: no routes at all.
  assert.deepEqual(routed(template({ b: { name: { ref: "c2" } } })), {});
  // A malformed template (the kernel would refuse it) gets no routes rather than an exception.
  const broken = template();
  (broken.nodes as Record<string, unknown>).x = null;
  assert.deepEqual(routed(broken), {});
});

function result(values: Record<string, unknown>): RenderResult {
  const mesh = { hash: "m1" } as unknown as RenderResult["parts"][number]["mesh"];
  return {
    values,
    dagHash: "h1",
    parts: [
      { name: "A", color: values.c1 as string, mesh, instances: [] },
      { name: "B", color: values.c2 as string, mesh, instances: [] },
    ],
    bbox: { min: [0, 0, 0], max: [1, 1, 1] },
    triangles: 12,
  } as unknown as RenderResult;
}

Deno.test("color preview - a color-only change recolors the shown scene, anything else waits", () => {
  const routes = colorRoutes(template(), SCHEMA);
  const shown = result({ c1: "#111111", c2: "#222222", w: 10 });
  const preview = previewColors(shown, { c1: "#2e86ab", c2: "#222222", w: 10 }, routes)!;
  assert.deepEqual(preview.parts.map((p) => p.color), ["#2e86ab", "#222222"]);
  assert.equal(preview.parts[0].mesh, shown.parts[0].mesh, "the held mesh is drawn");
  assert.equal(preview.parts[1], shown.parts[1], "an untouched part is the same object");
  assert.equal(preview.dagHash, shown.dagHash);
  assert.deepEqual(preview.values, { c1: "#2e86ab", c2: "#222222", w: 10 });
  assert.deepEqual(shown.parts.map((p) => p.color), ["#111111", "#222222"], "shown untouched");

  const both = previewColors(shown, { c1: "#000000", c2: "#ffffff", w: 10 }, routes)!;
  assert.deepEqual(both.parts.map((p) => p.color), ["#000000", "#ffffff"]);

  assert.equal(previewColors(shown, { ...shown.values }, routes), null, "nothing changed");
  assert.equal(previewColors(shown, { ...shown.values, w: 11 }, routes), null, "geometry");
  assert.equal(
    previewColors(shown, { ...shown.values, c1: "#2e86ab", w: 11 }, routes),
    null,
    "a color with a geometry change",
  );
  assert.equal(previewColors(shown, { ...shown.values, c1: "#2E86AB" }, routes), null, "spelling");
  assert.equal(previewColors(shown, { ...shown.values, c1: 3 }, routes), null, "not a string");
  assert.equal(previewColors(shown, { ...shown.values, extra: 1 }, routes), null, "unknown key");
  assert.equal(previewColors(shown, { c1: "#2e86ab" }, routes), null, "a value dropped");
  assert.equal(previewColors(shown, { ...shown.values, c1: "#2e86ab" }, new Map()), null);
});

Deno.test("color preview - the answer to a previewed pick draws the same picture", () => {
  const routes = colorRoutes(template(), SCHEMA);
  const shown = result({ c1: "#111111", c2: "#222222", w: 10 });
  const preview = previewColors(shown, { ...shown.values, c1: "#2e86ab" }, routes)!;
  const answer = { ...result({ ...shown.values, c1: "#2e86ab" }), dagHash: "h2" };
  assert.ok(drawsTheSame(preview, answer), "same parts, colors, meshes, bounds");
  assert.ok(!drawsTheSame(shown, answer), "another color");
  const moved = { ...answer, parts: [{ ...answer.parts[0], instances: [[1]] }, answer.parts[1]] };
  assert.ok(!drawsTheSame(preview, moved), "another placement");
  const other = { ...answer.parts[1], mesh: { hash: "m2" } as typeof answer.parts[1]["mesh"] };
  assert.ok(!drawsTheSame(preview, { ...answer, parts: [answer.parts[0], other] }), "another mesh");
  assert.ok(!drawsTheSame(preview, { ...answer, parts: [answer.parts[0]] }), "a part less");
  assert.ok(
    !drawsTheSame(preview, { ...answer, bbox: { min: [0, 0, 0], max: [1, 1, 2] } }),
    "other bounds",
  );
});
