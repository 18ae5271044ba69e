import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DagError } from "../../lib/kernel/dag_errors.ts";
import type { Dag } from "../../lib/kernel/dag_types.ts";
import {
  assertTemplateParameters,
  findParameter,
  isOnStep,
  type ParameterDescriptor,
  validateParameterSchema,
  validateParameterValue,
} from "../../lib/kernel/parameter_schema.ts";

type Json = Record<string, unknown>;

function properties(): Json {
  return {
    width: {
      kind: "Float",
      type: "number",
      default: 80,
      minimum: 40,
      maximum: 200,
      step: 0.5,
      label: "Width",
      unit: "mm",
      group: "Size",
      description: "Outer width.",
    },
    count: { kind: "Int", type: "integer", default: 2, minimum: 1, maximum: 8 },
    ribs: { kind: "Bool", type: "boolean", default: true },
    finish: {
      kind: "Enum",
      type: "string",
      enum: ["matte", "gloss"],
      enumLabels: ["Matte", "Gloss"],
      default: "matte",
    },
    color: {
      kind: "Color",
      type: "string",
      pattern: "^#[0-9a-f]{6}$",
      default: "#8899aa",
      swatches: ["#8899aa", "#000000"],
    },
  };
}

/** A valid schema document with some properties replaced (`undefined` removes one). */
function schemaDoc(props: Json = {}, extra: Json = {}): Json {
  const merged: Json = { ...properties(), ...props };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties: merged,
    ...extra,
  };
}

/** `width` with some members replaced. */
function width(members: Json): Json {
  const out: Json = { ...(properties().width as Json), ...members };
  for (const [key, value] of Object.entries(out)) if (value === undefined) delete out[key];
  return out;
}

Deno.test("kernel - validateParameterSchema returns typed descriptors in form order", () => {
  const schema = validateParameterSchema(schemaDoc());
  assert.deepEqual(schema.parameters.map((p) => p.name), [
    "width",
    "count",
    "ribs",
    "finish",
    "color",
  ]);
  assert.deepEqual(schema.parameters[0], {
    name: "width",
    kind: "Float",
    default: 80,
    minimum: 40,
    maximum: 200,
    step: 0.5,
    label: "Width",
    unit: "mm",
    group: "Size",
    description: "Outer width.",
  });
  assert.deepEqual(schema.parameters[1], {
    name: "count",
    kind: "Int",
    default: 2,
    minimum: 1,
    maximum: 8,
    label: "count",
  });
  assert.deepEqual(findParameter(schema, "finish")?.enumLabels, ["Matte", "Gloss"]);
  assert.deepEqual(findParameter(schema, "color")?.swatches, ["#8899aa", "#000000"]);
  assert.equal(findParameter(schema, "nope"), undefined);
  // x-order first, then the rest in property order.
  const ordered = validateParameterSchema(schemaDoc({}, { "x-order": ["color", "ribs"] }));
  assert.deepEqual(ordered.parameters.map((p) => p.name), [
    "color",
    "ribs",
    "width",
    "count",
    "finish",
  ]);
  // No parameters at all is a valid (if dull) schema.
  assert.deepEqual(
    validateParameterSchema({ type: "object", additionalProperties: false, properties: {} }),
    { parameters: [] },
  );
});

const badSchemas: { name: string; input: unknown; reason: string; pointer: string }[] = [
  { name: "array", input: [], reason: "not_an_object", pointer: "" },
  {
    name: "unknown top member",
    input: schemaDoc({}, { required: ["width"] }),
    reason: "unknown_member",
    pointer: "/required",
  },
  {
    name: "other dialect",
    input: schemaDoc({}, { $schema: "http://json-schema.org/draft-07/schema#" }),
    reason: "bad_choice",
    pointer: "/$schema",
  },
  {
    name: "not an object type",
    input: schemaDoc({}, { type: "array" }),
    reason: "type_mismatch",
    pointer: "/type",
  },
  {
    name: "additionalProperties missing",
    input: schemaDoc({}, { additionalProperties: undefined }),
    reason: "type_mismatch",
    pointer: "/additionalProperties",
  },
  {
    name: "additionalProperties true",
    input: schemaDoc({}, { additionalProperties: true }),
    reason: "type_mismatch",
    pointer: "/additionalProperties",
  },
  {
    name: "properties is an array",
    input: schemaDoc({}, { properties: [] }),
    reason: "not_an_object",
    pointer: "/properties",
  },
  {
    name: "bad parameter name",
    input: schemaDoc({ "a b": properties().ribs }),
    reason: "bad_parameter_name",
    pointer: "/properties/a b",
  },
  {
    name: "constructor as a name",
    input: schemaDoc({ constructor: properties().ribs }),
    reason: "bad_parameter_name",
    pointer: "/properties/constructor",
  },
  {
    name: "parameter is a string",
    input: schemaDoc({ ribs: "Bool" }),
    reason: "not_an_object",
    pointer: "/properties/ribs",
  },
  {
    name: "no kind",
    input: schemaDoc({ ribs: { type: "boolean", default: true } }),
    reason: "missing_member",
    pointer: "/properties/ribs/kind",
  },
  {
    name: "unknown kind",
    input: schemaDoc({ ribs: { kind: "Toggle", type: "boolean", default: true } }),
    reason: "bad_choice",
    pointer: "/properties/ribs/kind",
  },
  {
    name: "member of another kind",
    input: schemaDoc({ ribs: { kind: "Bool", type: "boolean", default: true, minimum: 0 } }),
    reason: "unknown_member",
    pointer: "/properties/ribs/minimum",
  },
  {
    name: "unenforced JSON Schema keyword",
    input: schemaDoc({ width: width({ exclusiveMinimum: 40 }) }),
    reason: "unknown_member",
    pointer: "/properties/width/exclusiveMinimum",
  },
  {
    name: "type does not match kind",
    input: schemaDoc({ width: width({ type: "integer" }) }),
    reason: "type_mismatch",
    pointer: "/properties/width/type",
  },
  {
    name: "no type",
    input: schemaDoc({ width: width({ type: undefined }) }),
    reason: "missing_member",
    pointer: "/properties/width/type",
  },
  {
    name: "no default",
    input: schemaDoc({ width: width({ default: undefined }) }),
    reason: "missing_member",
    pointer: "/properties/width/default",
  },
  {
    name: "Float without maximum",
    input: schemaDoc({ width: width({ maximum: undefined }) }),
    reason: "missing_member",
    pointer: "/properties/width/maximum",
  },
  {
    name: "minimum above maximum",
    input: schemaDoc({ width: width({ minimum: 300 }) }),
    reason: "out_of_range",
    pointer: "/properties/width/maximum",
  },
  {
    name: "bound beyond 1e6",
    input: schemaDoc({ width: width({ maximum: 2e6 }) }),
    reason: "out_of_range",
    pointer: "/properties/width/maximum",
  },
  {
    name: "zero step",
    input: schemaDoc({ width: width({ step: 0 }) }),
    reason: "out_of_range",
    pointer: "/properties/width/step",
  },
  {
    name: "string step",
    input: schemaDoc({ width: width({ step: "0.5" }) }),
    reason: "type_mismatch",
    pointer: "/properties/width/step",
  },
  {
    name: "default out of range",
    input: schemaDoc({ width: width({ default: 20 }) }),
    reason: "out_of_range",
    pointer: "/properties/width/default",
  },
  {
    name: "default not on step",
    input: schemaDoc({ width: width({ default: 80.25 }) }),
    reason: "bad_step",
    pointer: "/properties/width/default",
  },
  {
    name: "default of another type",
    input: schemaDoc({ width: width({ default: "80" }) }),
    reason: "type_mismatch",
    pointer: "/properties/width/default",
  },
  {
    name: "Int with a fractional minimum",
    input: schemaDoc({
      count: { kind: "Int", type: "integer", default: 2, minimum: 0.5, maximum: 8 },
    }),
    reason: "not_an_integer",
    pointer: "/properties/count/minimum",
  },
  {
    name: "Int with a fractional step",
    input: schemaDoc({
      count: { kind: "Int", type: "integer", default: 2, minimum: 1, maximum: 8, step: 0.5 },
    }),
    reason: "not_an_integer",
    pointer: "/properties/count/step",
  },
  {
    name: "Int with a fractional default",
    input: schemaDoc({
      count: { kind: "Int", type: "integer", default: 2.5, minimum: 1, maximum: 8 },
    }),
    reason: "not_an_integer",
    pointer: "/properties/count/default",
  },
  {
    name: "Enum without choices",
    input: schemaDoc({ finish: { kind: "Enum", type: "string", enum: [], default: "matte" } }),
    reason: "bad_length",
    pointer: "/properties/finish/enum",
  },
  {
    name: "Enum without enum",
    input: schemaDoc({ finish: { kind: "Enum", type: "string", default: "matte" } }),
    reason: "missing_member",
    pointer: "/properties/finish/enum",
  },
  {
    name: "Enum with a repeated choice",
    input: schemaDoc({
      finish: { kind: "Enum", type: "string", enum: ["a", "b", "a"], default: "a" },
    }),
    reason: "duplicate_name",
    pointer: "/properties/finish/enum/2",
  },
  {
    name: "Enum with a number choice",
    input: schemaDoc({ finish: { kind: "Enum", type: "string", enum: ["a", 2], default: "a" } }),
    reason: "type_mismatch",
    pointer: "/properties/finish/enum/1",
  },
  {
    name: "Enum default not a choice",
    input: schemaDoc({ finish: { kind: "Enum", type: "string", enum: ["a"], default: "b" } }),
    reason: "bad_choice",
    pointer: "/properties/finish/default",
  },
  {
    name: "labels of another length",
    input: schemaDoc({
      finish: { kind: "Enum", type: "string", enum: ["a", "b"], enumLabels: ["A"], default: "a" },
    }),
    reason: "bad_length",
    pointer: "/properties/finish/enumLabels",
  },
  {
    name: "another color pattern",
    input: schemaDoc({
      color: { kind: "Color", type: "string", pattern: "^#[0-9A-F]{6}$", default: "#000000" },
    }),
    reason: "bad_choice",
    pointer: "/properties/color/pattern",
  },
  {
    name: "uppercase default color",
    input: schemaDoc({ color: { kind: "Color", type: "string", default: "#ABCDEF" } }),
    reason: "bad_color",
    pointer: "/properties/color/default",
  },
  {
    name: "bad swatch",
    input: schemaDoc({
      color: { kind: "Color", type: "string", default: "#000000", swatches: ["#000000", "red"] },
    }),
    reason: "bad_color",
    pointer: "/properties/color/swatches/1",
  },
  {
    name: "empty label",
    input: schemaDoc({ width: width({ label: "" }) }),
    reason: "bad_length",
    pointer: "/properties/width/label",
  },
  {
    name: "label not a string",
    input: schemaDoc({ width: width({ label: 5 }) }),
    reason: "type_mismatch",
    pointer: "/properties/width/label",
  },
  {
    name: "x-order not an array",
    input: schemaDoc({}, { "x-order": "width" }),
    reason: "type_mismatch",
    pointer: "/x-order",
  },
  {
    name: "x-order names no property",
    input: schemaDoc({}, { "x-order": ["width", "height"] }),
    reason: "unknown_parameter",
    pointer: "/x-order/1",
  },
  {
    name: "x-order repeats a name",
    input: schemaDoc({}, { "x-order": ["width", "ribs", "width"] }),
    reason: "duplicate_name",
    pointer: "/x-order/2",
  },
  {
    name: "257 parameters",
    input: schemaDoc(
      Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`p${i}`, properties().ribs])),
    ),
    reason: "bad_length",
    pointer: "/properties",
  },
];

Deno.test("kernel - validateParameterSchema refuses inconsistent schemas with a pointer", () => {
  for (const row of badSchemas) {
    let caught: unknown;
    try {
      validateParameterSchema(row.input);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof DagError, `${row.name}: expected a DagError, got ${caught}`);
    assert.deepEqual(
      { code: caught.code, reason: caught.reason, pointer: caught.pointer },
      { code: "invalid_parameter_schema", reason: row.reason, pointer: row.pointer },
      `${row.name}: ${caught.message}`,
    );
  }
});

const schema = validateParameterSchema(schemaDoc());
const param = (name: string): ParameterDescriptor => findParameter(schema, name)!;

Deno.test("kernel - validateParameterValue accepts valid values unchanged", () => {
  const good: [string, unknown][] = [
    ["width", 40],
    ["width", 200],
    ["width", 80.5],
    ["count", 1],
    ["count", 8],
    ["ribs", false],
    ["finish", "gloss"],
    ["color", "#00ff7f"],
  ];
  for (const [name, value] of good) assert.equal(validateParameterValue(param(name), value), value);
});

Deno.test("kernel - validateParameterValue refuses each invalid value kind", () => {
  const bad: [string, unknown, string][] = [
    ["width", "80", "type_mismatch"],
    ["width", null, "type_mismatch"],
    ["width", NaN, "out_of_range"],
    ["width", Infinity, "out_of_range"],
    ["width", 39.5, "out_of_range"],
    ["width", 200.5, "out_of_range"],
    ["width", 80.25, "bad_step"],
    ["count", 2.5, "not_an_integer"],
    ["count", 9, "out_of_range"],
    ["count", 0, "out_of_range"],
    ["ribs", "true", "type_mismatch"],
    ["ribs", 1, "type_mismatch"],
    ["finish", "satin", "bad_choice"],
    ["finish", "MATTE", "bad_choice"],
    ["color", "#ABCDEF", "bad_color"],
    ["color", "#abc", "bad_color"],
    ["color", "red", "bad_color"],
    ["color", 0x8899aa, "type_mismatch"],
  ];
  for (const [name, value, reason] of bad) {
    assert.throws(
      () => validateParameterValue(param(name), value),
      { code: "invalid_parameters", reason, pointer: `/${name}` },
      `${name} = ${String(value)}`,
    );
  }
  assert.throws(() => validateParameterValue(param("width"), 1, "/nodes/w/value"), {
    pointer: "/nodes/w/value",
  });
});

Deno.test("kernel - steps allow 1e-9 relative slack for binary fractions", () => {
  assert.ok(isOnStep(0.1 + 0.2, 0, 0.1));
  assert.ok(isOnStep(1.2 + 0.4 + 0.4, 1.2, 0.4));
  assert.ok(isOnStep(1e5 + 0.1, 0, 0.1));
  assert.ok(isOnStep(-3, -5, 1));
  assert.ok(isOnStep(80 * (1 + 1e-10), 40, 0.5));
  assert.ok(!isOnStep(80 * (1 + 1e-8), 40, 0.5));
  assert.ok(!isOnStep(0.15, 0, 0.1));
  assert.ok(!isOnStep(2.0001, 1.2, 0.4));
  const stepped = validateParameterSchema(schemaDoc({
    wall: { kind: "Float", type: "number", default: 2, minimum: 1.2, maximum: 5.2, step: 0.4 },
  }));
  const wall = findParameter(stepped, "wall")!;
  assert.equal(validateParameterValue(wall, 1.2 + 0.4 * 7), 1.2 + 0.4 * 7);
  assert.throws(() => validateParameterValue(wall, 2.2), { reason: "bad_step" });
});

function template(nodes: Json): Dag {
  return { dag: 1, nodes, output: "out" } as unknown as Dag;
}

Deno.test("kernel - assertTemplateParameters checks each ParameterInput against the schema", () => {
  const good = template({
    w: { op: "ParameterInput", parameter: "width", fallback: 80 },
    w2: { op: "ParameterInput", parameter: "width", fallback: 100.5 },
    n: { op: "ParameterInput", parameter: "count", fallback: 3 },
    c: { op: "ParameterInput", parameter: "color", fallback: "#000000" },
    b: { op: "ParameterInput", parameter: "ribs", fallback: false, value: true },
  });
  assertTemplateParameters(good, schema);
  const bad: [Json, string, string][] = [
    [
      { op: "ParameterInput", parameter: "height", fallback: 1 },
      "unknown_parameter",
      "/nodes/x/parameter",
    ],
    [
      { op: "ParameterInput", parameter: "width", fallback: "80" },
      "type_mismatch",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "ribs", fallback: 1 },
      "type_mismatch",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "finish", fallback: true },
      "type_mismatch",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "width", fallback: 1000 },
      "out_of_range",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "count", fallback: 1.5 },
      "not_an_integer",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "finish", fallback: "satin" },
      "bad_choice",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "color", fallback: "#FFFFFF" },
      "bad_color",
      "/nodes/x/fallback",
    ],
    [
      { op: "ParameterInput", parameter: "width", fallback: 80, value: 80.1 },
      "bad_step",
      "/nodes/x/value",
    ],
  ];
  for (const [node, reason, pointer] of bad) {
    assert.throws(
      () => assertTemplateParameters(template({ x: node }), schema),
      { code: "invalid_dag", reason, pointer },
      JSON.stringify(node),
    );
  }
});

Deno.test("kernel - fixture parameter schemas are JSON Schemas that agree on values", async () => {
  // Not strict: the dialect's extensions (kind, label, x-order, …) are unknown keywords to ajv.
  const ajv = new Ajv2020({ strict: false });
  const dir = new URL("../fixtures/dags/", import.meta.url);
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.name.endsWith(".parameters.json")) continue;
    const doc = JSON.parse(await Deno.readTextFile(new URL(entry.name, dir)));
    const parsed = validateParameterSchema(doc);
    const check = ajv.compile(doc);
    const defaults = Object.fromEntries(parsed.parameters.map((p) => [p.name, p.default]));
    assert.ok(check(defaults), `${entry.name}: ${ajv.errorsText(check.errors)}`);
    for (const p of parsed.parameters) {
      const wrong = p.kind === "Bool"
        ? "yes"
        : p.kind === "Int" || p.kind === "Float"
        ? p.maximum! + 1
        : p.kind === "Enum"
        ? "not-a-choice"
        : "#ABCDEF";
      assert.throws(() => validateParameterValue(p, wrong), DagError, `${entry.name} ${p.name}`);
      if (p.kind !== "Color" || doc.properties[p.name].pattern !== undefined) {
        assert.equal(check({ ...defaults, [p.name]: wrong }), false, `${entry.name} ${p.name}`);
      }
    }
    assert.equal(check({ ...defaults, unknownParameter: 1 }), false, entry.name);
  }
});
