import assert from "node:assert/strict";
import { canonicalDagJson, dagHash } from "../../lib/dag/canonical_dag.ts";
import { DagError } from "../../lib/dag/dag_errors.ts";
import type { Dag } from "../../lib/dag/dag_types.ts";
import { validateDag } from "../../lib/kernel/dag_validate.ts";
import { validateParameterSchema } from "../../lib/dag/parameter_schema.ts";
import { parameterValues, substitute } from "../../lib/dag/substitute.ts";

const fixtures = new URL("../fixtures/dags/", import.meta.url);
const readJson = async (name: string) =>
  JSON.parse(await Deno.readTextFile(new URL(name, fixtures)));

const template = validateDag(await readJson("box_with_lid.dag.json"));
const schema = validateParameterSchema(await readJson("box_with_lid.parameters.json"));

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

Deno.test("kernel - substitute fills every ParameterInput with the value or the default", () => {
  const finished = substitute(template, schema, { length: 200, lidStyle: "flat", vents: true });
  assert.equal(validateDag(finished), finished);
  const nodes = finished.nodes as unknown as Record<string, Record<string, unknown>>;
  assert.equal(nodes.length.value, 200);
  assert.equal(nodes.lidStyle.value, "flat");
  assert.equal(nodes.vents.value, true);
  assert.equal(nodes.depth.value, 80); // the schema default
  assert.equal(nodes.wall.value, 2);
  assert.equal(nodes.lidColor.value, "#d2b48c");
  assert.deepEqual(parameterValues(finished), {
    length: 200,
    depth: 80,
    height: 60,
    wall: 2,
    lidStyle: "flat",
    vents: true,
    boxColor: "#2f4f4f",
    lidColor: "#d2b48c",
  });
  // Only ParameterInput nodes change.
  for (const [id, node] of Object.entries(template.nodes)) {
    if (node.op !== "ParameterInput") assert.deepEqual(finished.nodes[id], node, id);
  }
});

Deno.test("kernel - substitute uses the schema default, not the template fallback", () => {
  const nodes = structuredClone(template.nodes) as unknown as Record<
    string,
    Record<string, unknown>
  >;
  nodes.depth.fallback = 100;
  const finished = substitute({ ...template, nodes } as unknown as Dag, schema, {});
  assert.equal(parameterValues(finished).depth, 80);
  assert.equal(parameterValues({ ...template, nodes } as unknown as Dag).depth, 100);
});

Deno.test("kernel - substitute keeps the template's member order and replaces an old value", () => {
  const finished = substitute(template, schema, { height: 90 });
  assert.deepEqual(Object.keys(finished), Object.keys(template));
  assert.deepEqual(Object.keys(finished.nodes), Object.keys(template.nodes));
  assert.deepEqual(Object.keys(finished.nodes.height), ["op", "parameter", "fallback", "value"]);
  // Substituting a finished DAG again replaces `value` where it stands.
  const again = substitute(finished, schema, { height: 100 });
  assert.deepEqual(Object.keys(again.nodes.height), ["op", "parameter", "fallback", "value"]);
  assert.equal(parameterValues(again).height, 100);
  const reordered = structuredClone(template) as unknown as { nodes: Record<string, unknown> };
  reordered.nodes.height = { value: 70, op: "ParameterInput", parameter: "height", fallback: 60 };
  const kept = substitute(reordered as unknown as Dag, schema, { height: 90 });
  assert.deepEqual(Object.keys(kept.nodes.height), ["value", "op", "parameter", "fallback"]);
});

Deno.test("kernel - substitute is deterministic across key orders of values", async () => {
  const values = { length: 150, depth: 100, wall: 2.4, lidColor: "#ffffff", vents: true };
  const reversed = Object.fromEntries(Object.entries(values).reverse());
  const a = substitute(template, schema, values);
  const b = substitute(template, schema, reversed);
  const c = substitute(structuredClone(template), schema, { ...values });
  assert.equal(canonicalDagJson(a), canonicalDagJson(b));
  assert.equal(canonicalDagJson(a), canonicalDagJson(c));
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.equal(await dagHash(a), await dagHash(b));
  assert.notEqual(await dagHash(a), await dagHash(substitute(template, schema, {})));
  // Explicit defaults hash like absent values.
  assert.equal(
    await dagHash(substitute(template, schema, { depth: 80, vents: false })),
    await dagHash(substitute(template, schema, {})),
  );
});

Deno.test("kernel - substitute never mutates its inputs and shares nothing with them", () => {
  const frozenTemplate = deepFreeze(structuredClone(template));
  const frozenSchema = deepFreeze(structuredClone(schema));
  const values = deepFreeze({ length: 150 });
  const before = JSON.stringify([frozenTemplate, frozenSchema, values]);
  const finished = substitute(frozenTemplate, frozenSchema, values);
  assert.equal(JSON.stringify([frozenTemplate, frozenSchema, values]), before);
  assert.notEqual(finished, frozenTemplate);
  for (const id of Object.keys(finished.nodes)) {
    assert.notEqual(finished.nodes[id], frozenTemplate.nodes[id], id);
  }
  const outer = finished.nodes.outer as unknown as { size: unknown[] };
  assert.ok(!Object.isFrozen(outer.size));
  outer.size[0] = 1;
  assert.deepEqual((frozenTemplate.nodes.outer as unknown as { size: unknown[] }).size[0], {
    ref: "length",
  });
});

Deno.test("kernel - substitute refuses unknown names and invalid values at /<name>", () => {
  const bad: [Record<string, unknown>, string, string][] = [
    [{ width: 80 }, "unknown_parameter", "/width"],
    [{ length: 120, zeta: 1, alpha: 2 }, "unknown_parameter", "/alpha"],
    [JSON.parse('{"__proto__": 1}'), "unknown_parameter", "/__proto__"],
    [{ "a/b": 1 }, "unknown_parameter", "/a~1b"],
    [{ length: "120" }, "type_mismatch", "/length"],
    [{ length: 121 }, "bad_step", "/length"],
    [{ length: 30 }, "out_of_range", "/length"],
    [{ height: 60.5 }, "not_an_integer", "/height"],
    [{ wall: 2.1 }, "bad_step", "/wall"],
    [{ wall: NaN }, "out_of_range", "/wall"],
    [{ lidStyle: "domed" }, "bad_choice", "/lidStyle"],
    [{ vents: "yes" }, "type_mismatch", "/vents"],
    [{ boxColor: "#FFFFFF" }, "bad_color", "/boxColor"],
    [{ boxColor: "white" }, "bad_color", "/boxColor"],
    [{ lidColor: null }, "type_mismatch", "/lidColor"],
  ];
  for (const [values, reason, pointer] of bad) {
    assert.throws(
      () => substitute(template, schema, values),
      { code: "invalid_parameters", reason, pointer },
      JSON.stringify(values),
    );
  }
  // The first error does not depend on the order the caller wrote the values in.
  for (const values of [{ lidStyle: "x", length: 1 }, { length: 1, lidStyle: "x" }]) {
    assert.throws(() => substitute(template, schema, values), { pointer: "/length" });
  }
  assert.throws(
    () => substitute(template, schema, [] as unknown as Record<string, unknown>),
    { code: "invalid_parameters", reason: "not_an_object", pointer: "" },
  );
});

Deno.test("kernel - substitute treats undefined values as absent", () => {
  const finished = substitute(template, schema, { length: undefined });
  assert.equal(parameterValues(finished).length, 120);
});

Deno.test("kernel - substitute refuses a template that does not fit the schema", () => {
  const nodes = structuredClone(template.nodes) as unknown as Record<string, unknown>;
  nodes.extra = { op: "ParameterInput", parameter: "handle", fallback: true };
  try {
    substitute({ ...template, nodes } as unknown as Dag, schema, {});
    assert.fail("expected a DagError");
  } catch (err) {
    assert.ok(err instanceof DagError);
    assert.deepEqual([err.code, err.reason, err.pointer], [
      "invalid_dag",
      "unknown_parameter",
      "/nodes/extra/parameter",
    ]);
  }
});
