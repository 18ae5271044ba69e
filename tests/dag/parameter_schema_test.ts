/**
 * The parameter schema dialect (lib/dag/parameter_schema.ts): valid documents become descriptors;
 * bad documents, values and template fallbacks are refused with a code, a reason and a pointer,
 * listed here as tables, per descriptor kind.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DagError } from "../../lib/dag/dag_errors.ts";
import type { Dag } from "../../lib/dag/dag_types.ts";
import {
  assertTemplateParameters,
  completeParameterValues,
  findParameter,
  isOnStep,
  type ParameterDescriptor,
  validateParameterSchema,
  validateParameterValue,
} from "../../lib/dag/parameter_schema.ts";

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

/** Property `name` of `properties()` with some members replaced (`undefined` removes one). */
function prop(name: string, members: Json): Json {
  const out: Json = { ...(properties()[name] as Json), ...members };
  for (const [key, value] of Object.entries(out)) if (value === undefined) delete out[key];
  return out;
}

/** `width` with some members replaced. */
function width(members: Json): Json {
  return prop("width", members);
}

/** A valid schema document whose property `name` has some members replaced. */
function withProp(name: string, members: Json): Json {
  return schemaDoc({ [name]: prop(name, members) });
}

/** One refused input: what is refused, and the problem's reason and pointer. */
interface Refusal {
  name: string;
  input: unknown;
  reason: string;
  pointer: string;
}

/** Runs `fn` and checks that it throws a `DagError` with `code` and the row's reason and pointer. */
function assertRefused(fn: () => unknown, code: string, row: Omit<Refusal, "input">): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof DagError, `${row.name}: expected a DagError, got ${caught}`);
  assert.deepEqual(
    { code: caught.code, reason: caught.reason, pointer: caught.pointer },
    { code, reason: row.reason, pointer: row.pointer },
    `${row.name}: ${caught.message}`,
  );
}

Deno.test("parameter schema - valid documents become typed descriptors in form order", () => {
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

/** Schema documents that are refused: the reason and the pointer into the document. */
const SCHEMA_REFUSALS: Refusal[] = [
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
  // Documents (new cases).
  { name: "null", input: null, reason: "not_an_object", pointer: "" },
  { name: "a JSON string", input: "{}", reason: "not_an_object", pointer: "" },
  {
    name: "no type",
    input: schemaDoc({}, { type: undefined }),
    reason: "type_mismatch",
    pointer: "/type",
  },
  {
    name: "no properties",
    input: schemaDoc({}, { properties: undefined }),
    reason: "not_an_object",
    pointer: "/properties",
  },
  {
    name: "title not a string",
    input: schemaDoc({}, { title: 5 }),
    reason: "type_mismatch",
    pointer: "/title",
  },
  {
    name: "$id not a string",
    input: schemaDoc({}, { $id: {} }),
    reason: "type_mismatch",
    pointer: "/$id",
  },
  {
    name: "document description over 2000 characters",
    input: schemaDoc({}, { description: "d".repeat(2001) }),
    reason: "bad_length",
    pointer: "/description",
  },
  {
    name: "x-order entry not a string",
    input: schemaDoc({}, { "x-order": ["width", 5] }),
    reason: "unknown_parameter",
    pointer: "/x-order/1",
  },
  // Parameter names.
  {
    name: "empty parameter name",
    input: schemaDoc({ "": properties().ribs }),
    reason: "bad_parameter_name",
    pointer: "/properties/",
  },
  {
    name: "parameter name over 64 characters",
    input: schemaDoc({ ["p".repeat(65)]: properties().ribs }),
    reason: "bad_parameter_name",
    pointer: `/properties/${"p".repeat(65)}`,
  },
  {
    name: "a slash in a name (escaped in the pointer)",
    input: schemaDoc({ "a/b": properties().ribs }),
    reason: "bad_parameter_name",
    pointer: "/properties/a~1b",
  },
  {
    name: "__proto__ as a name (as JSON.parse gives it)",
    input: schemaDoc(
      JSON.parse('{"__proto__": {"kind": "Bool", "type": "boolean", "default": true}}'),
    ),
    reason: "bad_parameter_name",
    pointer: "/properties/__proto__",
  },
  {
    name: "toString as a name",
    input: schemaDoc({ toString: properties().ribs }),
    reason: "bad_parameter_name",
    pointer: "/properties/toString",
  },
  // kind.
  {
    name: "kind not a string",
    input: withProp("ribs", { kind: 5 }),
    reason: "bad_choice",
    pointer: "/properties/ribs/kind",
  },
  {
    name: "kind in lower case",
    input: withProp("ribs", { kind: "bool" }),
    reason: "bad_choice",
    pointer: "/properties/ribs/kind",
  },
  // Members every kind has.
  {
    name: "label over 200 characters",
    input: withProp("width", { label: "l".repeat(201) }),
    reason: "bad_length",
    pointer: "/properties/width/label",
  },
  {
    name: "description not a string",
    input: withProp("width", { description: ["Outer width."] }),
    reason: "type_mismatch",
    pointer: "/properties/width/description",
  },
  {
    name: "parameter description over 2000 characters",
    input: withProp("width", { description: "d".repeat(2001) }),
    reason: "bad_length",
    pointer: "/properties/width/description",
  },
  {
    name: "unit not a string",
    input: withProp("width", { unit: 1 }),
    reason: "type_mismatch",
    pointer: "/properties/width/unit",
  },
  {
    name: "unit over 200 characters",
    input: withProp("width", { unit: "m".repeat(201) }),
    reason: "bad_length",
    pointer: "/properties/width/unit",
  },
  {
    name: "empty group",
    input: withProp("width", { group: "" }),
    reason: "bad_length",
    pointer: "/properties/width/group",
  },
  {
    name: "group not a string",
    input: withProp("width", { group: null }),
    reason: "type_mismatch",
    pointer: "/properties/width/group",
  },
  // Int.
  {
    name: "Int of type number",
    input: withProp("count", { type: "number" }),
    reason: "type_mismatch",
    pointer: "/properties/count/type",
  },
  {
    name: "Int without minimum",
    input: withProp("count", { minimum: undefined }),
    reason: "missing_member",
    pointer: "/properties/count/minimum",
  },
  {
    name: "Int with a string maximum",
    input: withProp("count", { maximum: "8" }),
    reason: "type_mismatch",
    pointer: "/properties/count/maximum",
  },
  {
    name: "Int with a fractional maximum",
    input: withProp("count", { maximum: 8.5 }),
    reason: "not_an_integer",
    pointer: "/properties/count/maximum",
  },
  {
    name: "Int bound below -1e6",
    input: withProp("count", { minimum: -2e6 }),
    reason: "out_of_range",
    pointer: "/properties/count/minimum",
  },
  {
    name: "Int with a NaN bound",
    input: withProp("count", { minimum: NaN }),
    reason: "out_of_range",
    pointer: "/properties/count/minimum",
  },
  {
    name: "Int with a negative step",
    input: withProp("count", { step: -1 }),
    reason: "out_of_range",
    pointer: "/properties/count/step",
  },
  {
    name: "Int default off its step",
    input: withProp("count", { minimum: 1, maximum: 9, step: 2, default: 2 }),
    reason: "bad_step",
    pointer: "/properties/count/default",
  },
  {
    name: "Int default above maximum",
    input: withProp("count", { default: 9 }),
    reason: "out_of_range",
    pointer: "/properties/count/default",
  },
  {
    name: "Int default a string",
    input: withProp("count", { default: "2" }),
    reason: "type_mismatch",
    pointer: "/properties/count/default",
  },
  {
    name: "Int default a boolean",
    input: withProp("count", { default: true }),
    reason: "type_mismatch",
    pointer: "/properties/count/default",
  },
  {
    name: "Int with an Enum member",
    input: withProp("count", { enum: ["1", "2"] }),
    reason: "unknown_member",
    pointer: "/properties/count/enum",
  },
  // Float.
  {
    name: "Float without minimum",
    input: withProp("width", { minimum: undefined }),
    reason: "missing_member",
    pointer: "/properties/width/minimum",
  },
  {
    name: "Float with a string minimum",
    input: withProp("width", { minimum: "40" }),
    reason: "type_mismatch",
    pointer: "/properties/width/minimum",
  },
  {
    name: "Float with an infinite maximum",
    input: withProp("width", { maximum: Infinity }),
    reason: "out_of_range",
    pointer: "/properties/width/maximum",
  },
  {
    name: "Float with a negative step",
    input: withProp("width", { step: -0.5 }),
    reason: "out_of_range",
    pointer: "/properties/width/step",
  },
  {
    name: "Float with a step beyond 1e6",
    input: withProp("width", { step: 2e6 }),
    reason: "out_of_range",
    pointer: "/properties/width/step",
  },
  {
    name: "Float default above maximum",
    input: withProp("width", { default: 200.5 }),
    reason: "out_of_range",
    pointer: "/properties/width/default",
  },
  {
    name: "Float default NaN",
    input: withProp("width", { default: NaN }),
    reason: "out_of_range",
    pointer: "/properties/width/default",
  },
  {
    name: "Float default null",
    input: withProp("width", { default: null }),
    reason: "type_mismatch",
    pointer: "/properties/width/default",
  },
  {
    name: "Float with a Color member",
    input: withProp("width", { pattern: "^#[0-9a-f]{6}$" }),
    reason: "unknown_member",
    pointer: "/properties/width/pattern",
  },
  // Bool.
  {
    name: "Bool of type string",
    input: withProp("ribs", { type: "string" }),
    reason: "type_mismatch",
    pointer: "/properties/ribs/type",
  },
  {
    name: "Bool without default",
    input: withProp("ribs", { default: undefined }),
    reason: "missing_member",
    pointer: "/properties/ribs/default",
  },
  {
    name: "Bool default a string",
    input: withProp("ribs", { default: "true" }),
    reason: "type_mismatch",
    pointer: "/properties/ribs/default",
  },
  {
    name: "Bool default 1",
    input: withProp("ribs", { default: 1 }),
    reason: "type_mismatch",
    pointer: "/properties/ribs/default",
  },
  {
    name: "Bool default null",
    input: withProp("ribs", { default: null }),
    reason: "type_mismatch",
    pointer: "/properties/ribs/default",
  },
  {
    name: "Bool with an Enum member",
    input: withProp("ribs", { enum: ["yes", "no"] }),
    reason: "unknown_member",
    pointer: "/properties/ribs/enum",
  },
  // Enum.
  {
    name: "Enum of type array",
    input: withProp("finish", { type: "array" }),
    reason: "type_mismatch",
    pointer: "/properties/finish/type",
  },
  {
    name: "Enum whose enum is a string",
    input: withProp("finish", { enum: "matte", enumLabels: undefined }),
    reason: "type_mismatch",
    pointer: "/properties/finish/enum",
  },
  {
    name: "Enum with an empty choice",
    input: withProp("finish", { enum: ["", "matte"], enumLabels: undefined }),
    reason: "bad_length",
    pointer: "/properties/finish/enum/0",
  },
  {
    name: "Enum with a choice over 200 characters",
    input: withProp("finish", { enum: ["c".repeat(201)], enumLabels: undefined }),
    reason: "bad_length",
    pointer: "/properties/finish/enum/0",
  },
  {
    name: "Enum with 257 choices",
    input: withProp("finish", {
      enum: Array.from({ length: 257 }, (_, i) => `c${i}`),
      enumLabels: undefined,
      default: "c0",
    }),
    reason: "bad_length",
    pointer: "/properties/finish/enum",
  },
  {
    name: "Enum labels not an array",
    input: withProp("finish", { enumLabels: "Matte" }),
    reason: "type_mismatch",
    pointer: "/properties/finish/enumLabels",
  },
  {
    name: "Enum label a number",
    input: withProp("finish", { enumLabels: ["Matte", 2] }),
    reason: "type_mismatch",
    pointer: "/properties/finish/enumLabels/1",
  },
  {
    name: "Enum default a number",
    input: withProp("finish", { default: 0 }),
    reason: "type_mismatch",
    pointer: "/properties/finish/default",
  },
  {
    name: "Enum default a label, not a choice",
    input: withProp("finish", { default: "Matte" }),
    reason: "bad_choice",
    pointer: "/properties/finish/default",
  },
  {
    name: "Enum with a Float member",
    input: withProp("finish", { minimum: 0 }),
    reason: "unknown_member",
    pointer: "/properties/finish/minimum",
  },
  // Color.
  {
    name: "Color of type number",
    input: withProp("color", { type: "number" }),
    reason: "type_mismatch",
    pointer: "/properties/color/type",
  },
  {
    name: "Color pattern not a string",
    input: withProp("color", { pattern: 5 }),
    reason: "bad_choice",
    pointer: "/properties/color/pattern",
  },
  {
    name: "Color default of three digits",
    input: withProp("color", { default: "#abc" }),
    reason: "bad_color",
    pointer: "/properties/color/default",
  },
  {
    name: "Color default without #",
    input: withProp("color", { default: "8899aa" }),
    reason: "bad_color",
    pointer: "/properties/color/default",
  },
  {
    name: "Color default a number",
    input: withProp("color", { default: 0x8899aa }),
    reason: "type_mismatch",
    pointer: "/properties/color/default",
  },
  {
    name: "Color swatches not an array",
    input: withProp("color", { swatches: "#000000" }),
    reason: "type_mismatch",
    pointer: "/properties/color/swatches",
  },
  {
    name: "Color swatch a number",
    input: withProp("color", { swatches: [0] }),
    reason: "type_mismatch",
    pointer: "/properties/color/swatches/0",
  },
  {
    name: "Color swatch in upper case",
    input: withProp("color", { swatches: ["#000000", "#ABCDEF"] }),
    reason: "bad_color",
    pointer: "/properties/color/swatches/1",
  },
  {
    name: "Color with 65 swatches",
    input: withProp("color", { swatches: Array(65).fill("#000000") }),
    reason: "bad_length",
    pointer: "/properties/color/swatches",
  },
  {
    name: "Color with a Float member",
    input: withProp("color", { step: 1 }),
    reason: "unknown_member",
    pointer: "/properties/color/step",
  },
];

Deno.test("parameter schema - bad documents are refused with a reason and a pointer", async (t) => {
  for (const row of SCHEMA_REFUSALS) {
    await t.step(row.name, () => {
      assertRefused(() => validateParameterSchema(row.input), "invalid_parameter_schema", row);
    });
  }
});

/** A stepped Int, beside the five of `properties()`. */
const EVEN: Json = { kind: "Int", type: "integer", default: 4, minimum: 0, maximum: 10, step: 2 };
const schema = validateParameterSchema(schemaDoc({ even: EVEN }));
const param = (name: string): ParameterDescriptor => findParameter(schema, name)!;

Deno.test("parameter schema - validateParameterValue accepts valid values unchanged", () => {
  const good: [string, unknown][] = [
    ["width", 40],
    ["width", 200],
    ["width", 80.5],
    ["count", 1],
    ["count", 8],
    ["ribs", false],
    ["finish", "gloss"],
    ["color", "#00ff7f"],
    ["even", 0],
    ["even", 10],
  ];
  for (const [name, value] of good) assert.equal(validateParameterValue(param(name), value), value);
});

/** Values that are refused: [parameter, value, reason]; the pointer is `/<parameter>`. */
const VALUE_REFUSALS: [string, unknown, string][] = [
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
  // New cases, by kind.
  ["width", undefined, "type_mismatch"],
  ["width", [80], "type_mismatch"],
  ["width", { value: 80 }, "type_mismatch"],
  ["width", -Infinity, "out_of_range"],
  ["width", 1e7, "out_of_range"],
  ["count", "2", "type_mismatch"],
  ["count", true, "type_mismatch"],
  ["count", NaN, "out_of_range"],
  ["count", Infinity, "out_of_range"],
  ["even", 3, "bad_step"],
  ["even", 12, "out_of_range"],
  ["even", -2, "out_of_range"],
  ["even", 4.5, "not_an_integer"],
  ["ribs", null, "type_mismatch"],
  ["ribs", 0, "type_mismatch"],
  ["ribs", "false", "type_mismatch"],
  ["finish", 1, "type_mismatch"],
  ["finish", null, "type_mismatch"],
  ["finish", "", "bad_choice"],
  ["finish", "Matte", "bad_choice"],
  ["color", null, "type_mismatch"],
  ["color", "8899aa", "bad_color"],
  ["color", "#8899aa ", "bad_color"],
  ["color", "#gggggg", "bad_color"],
  ["color", "#8899aa80", "bad_color"],
];

Deno.test("parameter schema - validateParameterValue refuses each invalid value kind", async (t) => {
  for (const [name, value, reason] of VALUE_REFUSALS) {
    const label = `${name} = ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
    await t.step(label, () => {
      assertRefused(() => validateParameterValue(param(name), value), "invalid_parameters", {
        name: label,
        reason,
        pointer: `/${name}`,
      });
    });
  }
  await t.step("the pointer given", () => {
    assert.throws(() => validateParameterValue(param("width"), 1, "/nodes/w/value"), {
      pointer: "/nodes/w/value",
    });
  });
});

Deno.test("parameter schema - completeParameterValues fills defaults and keeps given values", () => {
  assert.deepEqual(completeParameterValues(schema, { width: 120, finish: "gloss" }), {
    width: 120,
    count: 2,
    ribs: true,
    finish: "gloss",
    color: "#8899aa",
    even: 4,
  });
  assert.equal(
    completeParameterValues(schema, { count: undefined }).count,
    2,
    "undefined: default",
  );
});

/** Values objects that are refused, before or while each value is checked. */
const VALUES_REFUSALS: Refusal[] = [
  { name: "an array", input: [], reason: "not_an_object", pointer: "" },
  { name: "null", input: null, reason: "not_an_object", pointer: "" },
  { name: "a string", input: "width=80", reason: "not_an_object", pointer: "" },
  {
    name: "an unknown name",
    input: { height: 1 },
    reason: "unknown_parameter",
    pointer: "/height",
  },
  {
    name: "the first unknown name in sorted order",
    input: { zeta: 1, alpha: 2 },
    reason: "unknown_parameter",
    pointer: "/alpha",
  },
  {
    name: "an unknown name before a bad value",
    input: { width: 1, height: 1 },
    reason: "unknown_parameter",
    pointer: "/height",
  },
  {
    name: "an inherited name",
    input: { constructor: 1 },
    reason: "unknown_parameter",
    pointer: "/constructor",
  },
  {
    name: "__proto__ (as JSON.parse gives it)",
    input: JSON.parse('{"__proto__": 1}'),
    reason: "unknown_parameter",
    pointer: "/__proto__",
  },
  { name: "a slash in a name", input: { "a/b": 1 }, reason: "unknown_parameter", pointer: "/a~1b" },
  { name: "a value out of range", input: { width: 1 }, reason: "out_of_range", pointer: "/width" },
  {
    name: "a value of another type",
    input: { ribs: "yes" },
    reason: "type_mismatch",
    pointer: "/ribs",
  },
];

Deno.test("parameter schema - completeParameterValues refuses bad values objects", async (t) => {
  for (const row of VALUES_REFUSALS) {
    await t.step(row.name, () => {
      assertRefused(
        () => completeParameterValues(schema, row.input as Record<string, unknown>),
        "invalid_parameters",
        row,
      );
    });
  }
});

Deno.test("parameter schema - steps allow 1e-9 relative slack for binary fractions", () => {
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

/** `ParameterInput` nodes (as node `x`) that the schema refuses: [node, reason, pointer]. */
const TEMPLATE_REFUSALS: [Json, string, string][] = [
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
  // New cases.
  [
    { op: "ParameterInput", parameter: "constructor", fallback: 1 },
    "unknown_parameter",
    "/nodes/x/parameter",
  ],
  [
    { op: "ParameterInput", parameter: "count", fallback: 9 },
    "out_of_range",
    "/nodes/x/fallback",
  ],
  [
    { op: "ParameterInput", parameter: "even", fallback: 3 },
    "bad_step",
    "/nodes/x/fallback",
  ],
  [
    { op: "ParameterInput", parameter: "color", fallback: 0 },
    "type_mismatch",
    "/nodes/x/fallback",
  ],
  [
    { op: "ParameterInput", parameter: "finish", fallback: "Matte" },
    "bad_choice",
    "/nodes/x/fallback",
  ],
  [
    { op: "ParameterInput", parameter: "ribs", fallback: true, value: "yes" },
    "type_mismatch",
    "/nodes/x/value",
  ],
];

Deno.test("parameter schema - assertTemplateParameters checks each ParameterInput against the schema", async (t) => {
  const good = template({
    w: { op: "ParameterInput", parameter: "width", fallback: 80 },
    w2: { op: "ParameterInput", parameter: "width", fallback: 100.5 },
    n: { op: "ParameterInput", parameter: "count", fallback: 3 },
    c: { op: "ParameterInput", parameter: "color", fallback: "#000000" },
    b: { op: "ParameterInput", parameter: "ribs", fallback: false, value: true },
  });
  assertTemplateParameters(good, schema);
  for (const [node, reason, pointer] of TEMPLATE_REFUSALS) {
    const name = JSON.stringify(node);
    await t.step(name, () => {
      assertRefused(() => assertTemplateParameters(template({ x: node }), schema), "invalid_dag", {
        name,
        reason,
        pointer,
      });
    });
  }
});

Deno.test("parameter schema - fixture parameter schemas are JSON Schemas that agree on values", async () => {
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
