import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DAG_OPS, validateDag } from "../../lib/kernel/dag_validate.ts";
import { DagError } from "../../lib/dag/dag_errors.ts";
import {
  assertTemplateParameters,
  validateParameterSchema,
} from "../../lib/dag/parameter_schema.ts";
import { substitute } from "../../lib/dag/substitute.ts";
import { generatedFiles } from "../../lib/kernel/ops/dag_schema_gen.ts";

const root = new URL("../../", import.meta.url);
const fixtures = new URL("tests/fixtures/dags/", root);
const schema = JSON.parse(await Deno.readTextFile(new URL("lib/dag/dag.schema.json", root)));
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validateSchema = ajv.compile(schema);

function fixtureNames(): string[] {
  const names: string[] = [];
  for (const entry of Deno.readDirSync(fixtures)) {
    if (entry.name.endsWith(".dag.json")) names.push(entry.name.slice(0, -".dag.json".length));
  }
  return names.sort();
}

async function readJson(name: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(new URL(name, fixtures)));
}

Deno.test("kernel - dag.schema.json is a strict 2020-12 schema that knows every op", () => {
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.deepEqual([...schema.$defs.node.properties.op.enum].sort(), [...DAG_OPS].sort());
  for (const op of DAG_OPS) assert.ok(schema.$defs[`op_${op}`], op);
});

Deno.test("kernel - dag.schema.json and docs/dag.md's op tables are generated from the op specs", async () => {
  for (const [path, fresh] of Object.entries(await generatedFiles(root))) {
    const committed = await Deno.readTextFile(new URL(path, root));
    assert.equal(committed, fresh, `${path} is stale: run \`deno task dag-schema\` and commit it`);
  }
});

Deno.test("kernel - every DAG fixture passes the JSON Schema and validateDag alike", async () => {
  const names = fixtureNames();
  assert.ok(names.length >= 3, names.join());
  for (const name of names) {
    const doc = await readJson(`${name}.dag.json`);
    assert.ok(validateSchema(doc), `${name}: ${ajv.errorsText(validateSchema.errors)}`);
    const dag = validateDag(doc);
    const params = validateParameterSchema(await readJson(`${name}.parameters.json`));
    assertTemplateParameters(dag, params);
    // The template with its defaults filled in is a valid DAG, under both checks.
    const finished = substitute(dag, params, {});
    assert.ok(validateSchema(finished), `${name}: ${ajv.errorsText(validateSchema.errors)}`);
    assert.equal(validateDag(finished), finished);
  }
});

Deno.test("kernel - the JSON Schema and validateDag refuse the same shape errors", async () => {
  const base = await readJson("bracket.dag.json") as { nodes: Record<string, unknown> };
  const variants: [string, (nodes: Record<string, Record<string, unknown>>) => void][] = [
    ["unknown op", (n) => n.base.op = "cube"],
    ["unknown member", (n) => n.base.colour = "#000000"],
    ["missing member", (n) => delete n.base.size],
    ["segments 2", (n) => n.hole.segments = 2],
    ["segments 257", (n) => n.hole.segments = 257],
    ["non-integer segments", (n) => n.hole.segments = 32.5],
    ["number out of range", (n) => n.usable.b = 2e6],
    ["zero size", (n) => n.base.size = [0, 40, 4]],
    ["uppercase color", (n) => n.bracket.color = "#ABCDEF"],
    ["bad reference", (n) => n.body.base = { ref: "frame", extra: true }],
    ["bad node id", (n) => n["bad id"] = { op: "circle", radius: 1 }],
    ["__proto__ node id", (n) =>
      Object.defineProperty(n, "__proto__", {
        value: { op: "circle", radius: 1 },
        enumerable: true,
      })],
    ["2 polygon points", (n) => n.ribProfile.points = [[0, 0], [1, 0]]],
    ["string where a number is expected", (n) => n.usable.b = "20"],
    ["array where a node is expected", (n) => n.single = [] as unknown as Record<string, unknown>],
    ["divide by literal zero", (n) => n.holeRadius.b = 0],
    [
      "offset with an unknown join",
      (n) => n.grown = { op: "offset", profile: { ref: "ribProfile" }, delta: 1, join: "bevel" },
    ],
    [
      "fillet of radius 0",
      (n) => n.rounded = { op: "fillet2d", profile: { ref: "ribProfile" }, radius: 0 },
    ],
    [
      "zero scale",
      (n) => n.ribLeft = { op: "scale", child: { ref: "ribUpright" }, factor: [0, 1, 1] },
    ],
  ];
  for (const [name, mutate] of variants) {
    const doc = structuredClone(base);
    mutate(doc.nodes as Record<string, Record<string, unknown>>);
    assert.equal(validateSchema(doc), false, `${name}: the JSON Schema accepted it`);
    assert.throws(() => validateDag(doc), DagError, name);
  }
});

Deno.test("kernel - some rules only validateDag can check", async () => {
  const base = await readJson("bracket.dag.json") as { nodes: Record<string, unknown> };
  const variants: [string, (nodes: Record<string, Record<string, unknown>>) => void, string][] = [
    ["cycle", (n) => n.legs.children = [{ ref: "body" }], "cycle"],
    ["dangling reference", (n) => n.legs.children = [{ ref: "nope" }], "unknown_reference"],
    ["profile as a solid", (n) => n.legs.children = [{ ref: "ribProfile" }], "type_mismatch"],
    [
      "clockwise polygon",
      (n) => n.ribProfile.points = [[0, 0], [0, 30], [30, 0]],
      "not_counter_clockwise",
    ],
  ];
  for (const [name, mutate, reason] of variants) {
    const doc = structuredClone(base);
    mutate(doc.nodes as Record<string, Record<string, unknown>>);
    assert.ok(validateSchema(doc), `${name}: ${ajv.errorsText(validateSchema.errors)}`);
    assert.throws(() => validateDag(doc), { reason }, name);
  }
});
