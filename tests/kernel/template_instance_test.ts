import assert from "node:assert/strict";
import { DagError } from "../../lib/dag/dag_errors.ts";
import { validateDag } from "../../lib/kernel/dag_validate.ts";
import { validateParameterSchema } from "../../lib/dag/parameter_schema.ts";
import { substitute } from "../../lib/dag/substitute.ts";
import {
  assertInstanceOf,
  templateHash,
  templateShape,
} from "../../lib/kernel/template_instance.ts";

type Json = Record<string, unknown>;
type Nodes = Record<string, Json>;

const fixtures = new URL("../fixtures/dags/", import.meta.url);
const readJson = async (name: string) =>
  JSON.parse(await Deno.readTextFile(new URL(name, fixtures)));

const template = validateDag(await readJson("box_with_lid.dag.json"));
const schema = validateParameterSchema(await readJson("box_with_lid.parameters.json"));
const hash = await templateHash(template);
const values = { length: 150, lidStyle: "flat", vents: true, lidColor: "#ffffff" };

/** A finished DAG as plain JSON, to be edited by a test. */
function finishedJson(): { dag: number; nodes: Nodes; output: string } {
  return JSON.parse(JSON.stringify(substitute(template, schema, values)));
}

async function refusal(finished: unknown): Promise<DagError> {
  try {
    await assertInstanceOf(finished, template, hash, schema);
  } catch (err) {
    assert.ok(err instanceof DagError, String(err));
    return err;
  }
  assert.fail("expected a DagError");
}

Deno.test("kernel - a filled template is an instance of it", async () => {
  const finished = finishedJson();
  assert.equal(await assertInstanceOf(finished, template, hash, schema), finished);
  const defaults = substitute(template, schema, {});
  assert.equal(await assertInstanceOf(defaults, template, hash, schema), defaults);
});

Deno.test("kernel - templateShape removes values and nothing else", async () => {
  const finished = substitute(template, schema, values);
  const shape = templateShape(finished);
  assert.deepEqual(shape, template);
  assert.notEqual(shape.nodes.length, finished.nodes.length);
  assert.ok(Object.hasOwn(finished.nodes.length, "value"), "the input keeps its values");
  assert.equal(await templateHash(finished), hash);
  assert.equal(await templateHash(shape), hash);
});

Deno.test("kernel - changing any literal of a template is refused at that literal", async () => {
  let checked = 0;
  for (const name of ["bracket", "box_with_lid", "flange", "docs_example"]) {
    const t = validateDag(await readJson(`${name}.dag.json`));
    const s = validateParameterSchema(await readJson(`${name}.parameters.json`));
    const h = await templateHash(t);
    const base: { nodes: Nodes } = JSON.parse(JSON.stringify(substitute(t, s, {})));
    for (const [id, node] of Object.entries(base.nodes)) {
      for (const [path, changed] of literalChanges(node)) {
        const finished = structuredClone(base);
        setAt(finished.nodes[id], path, changed);
        try {
          validateDag(finished);
        } catch {
          continue; // the change broke a format rule first (e.g. degrees 360 → 361)
        }
        const pointer = ["", "nodes", id, ...path].join("/");
        await assert.rejects(() => assertInstanceOf(finished, t, h, s), {
          code: "invalid_dag",
          reason: "not_an_instance",
          pointer,
        }, `${name}: ${pointer}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 100, `only ${checked} literals checked`);
});

Deno.test("kernel - adding, removing or re-wiring nodes is refused at the first difference", async () => {
  const cases: [string, (nodes: Nodes, doc: Json) => void, string][] = [
    ["added node", (n) => n.extra = { op: "sphere", radius: 1 }, "/nodes/extra"],
    ["removed part", (n) => {
      n.out.parts = [{ ref: "boxPart" }];
      delete n.lidPart;
    }, "/nodes/out/parts/1"],
    ["rewired reference", (n) => n.shell.base = { ref: "cavity" }, "/nodes/shell/base/ref"],
    ["added optional member", (n) => n.outer.center = true, "/nodes/outer/center"],
    ["removed optional member", (n) => delete n.vent.segments, "/nodes/vent/segments"],
    ["renamed parameter", (n) => n.boxColor.parameter = "lidColor", "/nodes/boxColor/parameter"],
    ["changed fallback", (n) => n.length.fallback = 125, "/nodes/length/fallback"],
    ["other output", (n, doc) => {
      n.out2 = { op: "assembly", parts: [{ ref: "boxPart" }, { ref: "lidPart" }] };
      doc.output = "out2";
    }, "/nodes/out2"],
  ];
  for (const [name, change, pointer] of cases) {
    const finished = finishedJson();
    change(finished.nodes, finished as unknown as Json);
    const err = await refusal(finished);
    assert.deepEqual([err.code, err.reason, err.pointer], [
      "invalid_dag",
      "not_an_instance",
      pointer,
    ], name);
  }
});

Deno.test("kernel - a node only the template has is named", async () => {
  const withSpare = structuredClone(template) as unknown as { nodes: Nodes };
  withSpare.nodes.spare = { op: "box", size: [1, 1, 1] };
  const spareTemplate = validateDag(withSpare);
  const spareHash = await templateHash(spareTemplate);
  const finished = finishedJson(); // made from the template without `spare`
  await assert.rejects(() => assertInstanceOf(finished, spareTemplate, spareHash, schema), {
    reason: "not_an_instance",
    pointer: "/nodes/spare",
  });
  // A stale hash with an identical template blames the whole document.
  await assert.rejects(() => assertInstanceOf(finished, template, "0".repeat(64), schema), {
    reason: "not_an_instance",
    pointer: "",
  });
});

Deno.test("kernel - an instance must carry a valid value in every ParameterInput", async () => {
  const cases: [string, (nodes: Nodes) => void, string, string, string][] = [
    [
      "out of range",
      (n) => n.length.value = 400,
      "invalid_parameters",
      "out_of_range",
      "/nodes/length/value",
    ],
    ["off step", (n) => n.wall.value = 2.2, "invalid_parameters", "bad_step", "/nodes/wall/value"],
    [
      "not a choice",
      (n) => n.lidStyle.value = "domed",
      "invalid_parameters",
      "bad_choice",
      "/nodes/lidStyle/value",
    ],
    [
      "uppercase color",
      (n) => n.boxColor.value = "#FFFFFF",
      "invalid_parameters",
      "bad_color",
      "/nodes/boxColor/value",
    ],
    [
      "fractional Int",
      (n) => n.height.value = 60.5,
      "invalid_parameters",
      "not_an_integer",
      "/nodes/height/value",
    ],
    [
      "missing value",
      (n) => delete n.depth.value,
      "invalid_dag",
      "missing_value",
      "/nodes/depth/value",
    ],
    [
      "value of another type",
      (n) => n.vents.value = "true",
      "invalid_dag",
      "type_mismatch",
      "/nodes/vents/value",
    ],
  ];
  for (const [name, change, code, reason, pointer] of cases) {
    const finished = finishedJson();
    change(finished.nodes);
    const err = await refusal(finished);
    assert.deepEqual([err.code, err.reason, err.pointer], [code, reason, pointer], name);
  }
});

Deno.test("kernel - two slots of one parameter must agree", async () => {
  const doubled = structuredClone(template) as unknown as { nodes: Nodes };
  doubled.nodes.length2 = { op: "ParameterInput", parameter: "length", fallback: 120 };
  doubled.nodes.halfLength.a = { ref: "length2" };
  const t = validateDag(doubled);
  const h = await templateHash(t);
  const finished = JSON.parse(JSON.stringify(substitute(t, schema, { length: 150 })));
  assert.equal(await assertInstanceOf(finished, t, h, schema), finished);
  finished.nodes.length2.value = 160;
  await assert.rejects(() => assertInstanceOf(finished, t, h, schema), {
    code: "invalid_parameters",
    reason: "inconsistent_values",
    pointer: "/nodes/length2/value",
  });
});

Deno.test("kernel - an invalid finished DAG is refused before the template is looked at", async () => {
  const finished = finishedJson();
  finished.nodes.shell.base = { ref: "shell" };
  const err = await refusal(finished);
  assert.deepEqual([err.code, err.reason, err.pointer], [
    "invalid_dag",
    "cycle",
    "/nodes/shell/base",
  ]);
  assert.equal((await refusal("not a dag")).reason, "not_an_object");
});

/** Every literal member of a node (by path) and a changed value of the same type. */
function literalChanges(node: Json): [string[], unknown][] {
  if (node.op === "ParameterInput") return [];
  const out: [string[], unknown][] = [];
  const visit = (value: unknown, path: string[]) => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...path, String(i)]));
    else if (typeof value === "number") out.push([path, value + 1]);
    else if (typeof value === "boolean") out.push([path, !value]);
    else if (typeof value === "string" && path[0] !== "op") {
      out.push([
        path,
        value.startsWith("#") ? "#010203" : path[0] === "mode" ? "ceil" : `${value}2`,
      ]);
    }
  };
  for (const [key, value] of Object.entries(node)) visit(value, [key]);
  return out;
}

function setAt(node: Json, path: string[], value: unknown): void {
  let target = node as Record<string, unknown>;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[path[path.length - 1]] = value;
}

Deno.test("kernel - the instance check is JSON equality: member order does not matter", async () => {
  const finished = finishedJson();
  // Every node's members in reverse order, and the nodes too: the same JSON as the template.
  const reversed = Object.fromEntries(
    Object.entries(finished.nodes).reverse().map((
      [id, node],
    ) => [id, Object.fromEntries(Object.entries(node).reverse())]),
  );
  const shuffled = { output: finished.output, nodes: reversed, dag: finished.dag };
  assert.equal(await templateHash(validateDag(structuredClone(shuffled))), hash);
  await assertInstanceOf(shuffled, template, hash, schema);
});
