/**
 * The parameter schema (`parameters.schema.json`, docs/dag.md "Parameter schema"): a small, strict
 * JSON Schema 2020-12 dialect describing a template's parameters and how the form shows them.
 * Three checks live here: the schema document itself (on publishing), one value against its
 * parameter (on substitution and on render), and a template's `ParameterInput` nodes against the
 * schema (on publishing). Members the dialect does not define are refused rather than ignored, so
 * a partner never believes a rule (say `exclusiveMinimum`) is enforced when it is not.
 *
 * Runs in browsers too: no Deno APIs here.
 */

import {
  DagError,
  type DagErrorReason,
  isPlainObject,
  isValidName,
  jsonPointer,
  jsonTypeName,
  quoted,
} from "./dag_errors.ts";
import { DEFAULT_DAG_LIMITS } from "./dag_limits.ts";
import { codePointLength, firstDisallowed, parseStringPattern } from "./string_pattern.ts";
import {
  COLOR_PATTERN,
  type Dag,
  type ParameterInputNode,
  type ParameterValue,
} from "./dag_types.ts";

/** The kinds of parameter the form knows. */
export type ParameterKind = "Int" | "Float" | "Bool" | "Enum" | "Color" | "String";

/** One parameter, as validated from the schema document. */
export interface ParameterDescriptor {
  name: string;
  kind: ParameterKind;
  default: ParameterValue;
  /** Int, Float: inclusive lower bound. */
  minimum?: number;
  /** Int, Float: inclusive upper bound. */
  maximum?: number;
  /** Int, Float: values are `minimum + k·step`. */
  step?: number;
  /** Enum: the choices. */
  enum?: string[];
  /** Enum: display names, one per choice. */
  enumLabels?: string[];
  /** Color: suggested colors. */
  swatches?: string[];
  /** String: most characters (code points). */
  maxLength?: number;
  /** String: fewest characters (code points); 0 when absent. */
  minLength?: number;
  /** String: the allowed characters, as one class `^[…]*$` (`string_pattern.ts`). */
  pattern?: string;
  /** Display name (the parameter's name when the schema gives none). */
  label: string;
  description?: string;
  unit?: string;
  group?: string;
}

/** A validated parameter schema: the parameters in form order (`x-order`, then property order). */
export interface ParameterSchema {
  parameters: ParameterDescriptor[];
}

/** The JSON Schema dialect the document must declare, when it declares one. */
export const PARAMETER_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";
/** The Color `pattern`, the only one accepted. */
export const COLOR_PATTERN_SOURCE = "^#[0-9a-f]{6}$";
/** Most parameters in one schema. */
export const MAX_PARAMETERS = 256;

const JSON_TYPE: Record<ParameterKind, string> = {
  Int: "integer",
  Float: "number",
  Bool: "boolean",
  Enum: "string",
  Color: "string",
  String: "string",
};
const VALUE_TYPE: Record<ParameterKind, string> = {
  Int: "number",
  Float: "number",
  Bool: "boolean",
  Enum: "string",
  Color: "string",
  String: "string",
};
const TOP_MEMBERS = [
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "type",
  "properties",
  "additionalProperties",
  "x-order",
];
const COMMON_MEMBERS = ["kind", "type", "default", "label", "description", "unit", "group"];
const KIND_MEMBERS: Record<ParameterKind, string[]> = {
  Int: ["minimum", "maximum", "step"],
  Float: ["minimum", "maximum", "step"],
  Bool: [],
  Enum: ["enum", "enumLabels"],
  Color: ["pattern", "swatches"],
  String: ["maxLength", "minLength", "pattern"],
};
const REQUIRED_MEMBERS: Record<ParameterKind, string[]> = {
  Int: ["minimum", "maximum"],
  Float: ["minimum", "maximum"],
  Bool: [],
  Enum: ["enum"],
  Color: [],
  String: ["maxLength"],
};
const MAX_DESCRIPTION = 2000;
const MAX_CHOICES = 256;
const MAX_SWATCHES = 64;

function schemaError(reason: DagErrorReason, pointer: string, message: string): never {
  throw new DagError("invalid_parameter_schema", reason, pointer, message);
}

/**
 * Validates a `parameters.schema.json` document. Throws `DagError` `invalid_parameter_schema`
 * with a pointer into the document.
 *
 * @example
 * ```ts
 * const schema = validateParameterSchema({
 *   type: "object", additionalProperties: false,
 *   properties: { width: { kind: "Float", type: "number", default: 80, minimum: 40, maximum: 200 } },
 * });
 * schema.parameters[0].label; // "width"
 * ```
 */
export function validateParameterSchema(input: unknown): ParameterSchema {
  if (!isPlainObject(input)) schemaError("not_an_object", "", "the schema must be a JSON object");
  for (const key of Object.keys(input)) {
    if (!TOP_MEMBERS.includes(key)) {
      schemaError("unknown_member", jsonPointer(key), `unknown member ${quoted(key)}`);
    }
  }
  if (Object.hasOwn(input, "$schema") && input.$schema !== PARAMETER_SCHEMA_DIALECT) {
    schemaError("bad_choice", "/$schema", `the dialect is ${PARAMETER_SCHEMA_DIALECT}`);
  }
  for (const key of ["$id", "$comment", "title", "description"]) {
    if (Object.hasOwn(input, key)) text(input[key], jsonPointer(key), MAX_DESCRIPTION);
  }
  if (input.type !== "object") schemaError("type_mismatch", "/type", 'type must be "object"');
  if (input.additionalProperties !== false) {
    schemaError("type_mismatch", "/additionalProperties", "additionalProperties must be false");
  }
  const properties = input.properties;
  if (!isPlainObject(properties)) {
    schemaError("not_an_object", "/properties", "properties must be a JSON object");
  }
  const names = Object.keys(properties);
  if (names.length > MAX_PARAMETERS) {
    schemaError("bad_length", "/properties", `at most ${MAX_PARAMETERS} parameters`);
  }
  const byName = new Map<string, ParameterDescriptor>();
  for (const name of names) byName.set(name, descriptor(name, properties[name]));
  const order: string[] = [];
  if (Object.hasOwn(input, "x-order")) {
    const listed = input["x-order"];
    if (!Array.isArray(listed)) schemaError("type_mismatch", "/x-order", "expected an array");
    listed.forEach((name: unknown, k: number) => {
      if (typeof name !== "string" || !byName.has(name)) {
        schemaError("unknown_parameter", `/x-order/${k}`, `x-order entry ${k} names no property`);
      }
      if (order.includes(name)) schemaError("duplicate_name", `/x-order/${k}`, `${name} repeats`);
      order.push(name);
    });
  }
  // Names that x-order leaves out follow in property order, so a partial x-order is enough.
  for (const name of names) if (!order.includes(name)) order.push(name);
  return { parameters: order.map((name) => byName.get(name)!) };
}

/** One property of the schema → its descriptor. */
function descriptor(name: string, input: unknown): ParameterDescriptor {
  const base = jsonPointer("properties", name);
  if (!isValidName(name)) {
    schemaError("bad_parameter_name", base, "parameter names are 1–64 of [A-Za-z0-9_.-]");
  }
  if (!isPlainObject(input)) schemaError("not_an_object", base, `${name} must be an object`);
  if (!Object.hasOwn(input, "kind")) {
    schemaError("missing_member", `${base}/kind`, "kind is required");
  }
  const kind = input.kind;
  if (typeof kind !== "string" || !Object.hasOwn(JSON_TYPE, kind)) {
    schemaError("bad_choice", `${base}/kind`, "kind is Int, Float, Bool, Enum, Color or String");
  }
  const k = kind as ParameterKind;
  for (const key of Object.keys(input)) {
    if (!COMMON_MEMBERS.includes(key) && !KIND_MEMBERS[k].includes(key)) {
      schemaError(
        "unknown_member",
        `${base}${jsonPointer(key)}`,
        `${k} has no member ${quoted(key)}`,
      );
    }
  }
  for (const key of ["type", "default", ...REQUIRED_MEMBERS[k]]) {
    if (!Object.hasOwn(input, key)) {
      schemaError("missing_member", `${base}/${key}`, `${key} is required`);
    }
  }
  if (input.type !== JSON_TYPE[k]) {
    schemaError("type_mismatch", `${base}/type`, `a ${k} has type "${JSON_TYPE[k]}"`);
  }
  const out: ParameterDescriptor = { name, kind: k, default: false, label: name };
  if (k === "Int" || k === "Float") {
    out.minimum = bound(input.minimum, `${base}/minimum`, k);
    out.maximum = bound(input.maximum, `${base}/maximum`, k);
    if (out.minimum > out.maximum) {
      schemaError("out_of_range", `${base}/maximum`, "maximum < minimum");
    }
    if (Object.hasOwn(input, "step")) {
      out.step = bound(input.step, `${base}/step`, k);
      if (!(out.step > 0)) schemaError("out_of_range", `${base}/step`, "step must be > 0");
    }
  } else if (k === "Enum") {
    out.enum = strings(input.enum, `${base}/enum`, 1, MAX_CHOICES);
    out.enum.forEach((choice, i) => {
      if (choice.length === 0) schemaError("bad_length", `${base}/enum/${i}`, "empty choice");
      if (out.enum!.indexOf(choice) !== i) {
        schemaError("duplicate_name", `${base}/enum/${i}`, `choice ${quoted(choice)} repeats`);
      }
    });
    if (Object.hasOwn(input, "enumLabels")) {
      const n = out.enum.length;
      out.enumLabels = strings(input.enumLabels, `${base}/enumLabels`, n, n);
    }
  } else if (k === "Color") {
    if (Object.hasOwn(input, "pattern") && input.pattern !== COLOR_PATTERN_SOURCE) {
      schemaError("bad_choice", `${base}/pattern`, `the Color pattern is ${COLOR_PATTERN_SOURCE}`);
    }
    if (Object.hasOwn(input, "swatches")) {
      out.swatches = strings(input.swatches, `${base}/swatches`, 0, MAX_SWATCHES);
      out.swatches.forEach((color, i) => {
        if (!COLOR_PATTERN.test(color)) {
          schemaError("bad_color", `${base}/swatches/${i}`, "#rrggbb");
        }
      });
    }
  } else if (k === "String") {
    const most = DEFAULT_DAG_LIMITS.maxStringLength;
    out.maxLength = count(input.maxLength, `${base}/maxLength`, 1, most);
    if (Object.hasOwn(input, "minLength")) {
      out.minLength = count(input.minLength, `${base}/minLength`, 0, out.maxLength);
    }
    if (Object.hasOwn(input, "pattern")) {
      const pattern = text(input.pattern, `${base}/pattern`, 1000, 1);
      const parsed = parseStringPattern(pattern);
      if ("error" in parsed) schemaError("bad_choice", `${base}/pattern`, parsed.error);
      out.pattern = pattern;
    }
  }
  try {
    out.default = validateParameterValue(out, input.default);
  } catch (err) {
    if (err instanceof DagError) throw err.at(`${base}/default`, "invalid_parameter_schema");
    throw err;
  }
  if (Object.hasOwn(input, "label")) out.label = text(input.label, `${base}/label`, 200, 1);
  if (Object.hasOwn(input, "description")) {
    out.description = text(input.description, `${base}/description`, MAX_DESCRIPTION);
  }
  if (Object.hasOwn(input, "unit")) out.unit = text(input.unit, `${base}/unit`, 200);
  if (Object.hasOwn(input, "group")) out.group = text(input.group, `${base}/group`, 200, 1);
  return out;
}

function bound(value: unknown, pointer: string, kind: ParameterKind): number {
  if (typeof value !== "number") schemaError("type_mismatch", pointer, "expected a number");
  if (!Number.isFinite(value) || Math.abs(value) > DEFAULT_DAG_LIMITS.maxAbsNumber) {
    schemaError("out_of_range", pointer, `numbers are finite with |x| ≤ 1e6`);
  }
  if (kind === "Int" && !Number.isInteger(value)) {
    schemaError("not_an_integer", pointer, "an Int's bounds and step are integers");
  }
  return value;
}

/** An integer from `min` to `max` (a String's lengths). */
function count(value: unknown, pointer: string, min: number, max: number): number {
  if (typeof value !== "number") schemaError("type_mismatch", pointer, "expected an integer");
  if (!Number.isInteger(value)) schemaError("not_an_integer", pointer, "expected an integer");
  if (value < min || value > max) schemaError("out_of_range", pointer, `expected ${min}–${max}`);
  return value;
}

function text(value: unknown, pointer: string, max: number, min = 0): string {
  if (typeof value !== "string") schemaError("type_mismatch", pointer, "expected a string");
  if (value.length < min || value.length > max) {
    schemaError("bad_length", pointer, `expected ${min}–${max} characters`);
  }
  return value;
}

function strings(value: unknown, pointer: string, min: number, max: number): string[] {
  if (!Array.isArray(value)) schemaError("type_mismatch", pointer, "expected an array of strings");
  if (value.length < min || value.length > max) {
    schemaError("bad_length", pointer, `expected ${min}–${max} elements`);
  }
  return value.map((item: unknown, i: number) => text(item, `${pointer}/${i}`, 200));
}

/**
 * Whether `value` is `minimum + k·step` for an integer k, within 1e-9 relative to the larger of
 * the value's magnitude and the step (so 0.1 + 0.2 is on a 0.1 grid, and 1e-12 off zero too).
 */
export function isOnStep(value: number, minimum: number, step: number): boolean {
  const snapped = minimum + Math.round((value - minimum) / step) * step;
  return Math.abs(value - snapped) <= 1e-9 * Math.max(Math.abs(value), Math.abs(snapped), step);
}

function valueError(reason: DagErrorReason, pointer: string, message: string): never {
  throw new DagError("invalid_parameters", reason, pointer, message);
}

/**
 * Checks one value against its parameter and returns it unchanged. Throws `DagError`
 * `invalid_parameters` at `pointer` (default `/<name>`, i.e. into the `values` object).
 *
 * Colors must already be lowercase `#rrggbb`: `#ABCDEF` is refused (`bad_color`), not normalized,
 * because the schema's own `pattern` refuses it too, and because a finished DAG must hash the same
 * wherever it was built: a server that silently lowercased would accept an instance whose bytes
 * differ from what the client hashed.
 *
 * @example
 * ```ts
 * validateParameterValue(widthParam, 82.5); // 82.5, or throws DagError("invalid_parameters", …)
 * ```
 */
export function validateParameterValue(
  param: ParameterDescriptor,
  value: unknown,
  pointer: string = jsonPointer(param.name),
): ParameterValue {
  const name = param.name;
  const type = typeof value;
  if (type !== VALUE_TYPE[param.kind]) {
    valueError("type_mismatch", pointer, `${name} is ${param.kind}, got ${jsonTypeName(value)}`);
  }
  switch (param.kind) {
    case "Int":
    case "Float": {
      const x = value as number;
      if (!Number.isFinite(x)) valueError("out_of_range", pointer, `${name} must be finite`);
      if (param.kind === "Int" && !Number.isInteger(x)) {
        valueError("not_an_integer", pointer, `${name} must be an integer`);
      }
      if (x < param.minimum! || x > param.maximum!) {
        valueError("out_of_range", pointer, `${name} is ${param.minimum}–${param.maximum}`);
      }
      if (param.step !== undefined && !isOnStep(x, param.minimum!, param.step)) {
        valueError("bad_step", pointer, `${name} moves in steps of ${param.step}`);
      }
      return x;
    }
    case "Bool":
      return value as boolean;
    case "Enum":
      if (!param.enum!.includes(value as string)) {
        valueError("bad_choice", pointer, `${name} is one of ${param.enum!.join(", ")}`);
      }
      return value as string;
    case "Color":
      if (!COLOR_PATTERN.test(value as string)) {
        valueError("bad_color", pointer, `${name} is a lowercase #rrggbb color`);
      }
      return value as string;
    case "String":
      return checkString(param, value as string, pointer);
  }
}

/** A String value: its length in characters, then each character against the pattern. */
function checkString(param: ParameterDescriptor, value: string, pointer: string): string {
  const name = param.name;
  const length = codePointLength(value);
  if (length > param.maxLength! || value.length > DEFAULT_DAG_LIMITS.maxStringLength) {
    valueError("string_too_long", pointer, `${name} is at most ${param.maxLength} characters`);
  }
  if (length < (param.minLength ?? 0)) {
    valueError("bad_length", pointer, `${name} is at least ${param.minLength} characters`);
  }
  if (param.pattern !== undefined) {
    const parsed = parseStringPattern(param.pattern);
    const bad = "ranges" in parsed ? firstDisallowed(value, parsed.ranges) : undefined;
    if ("error" in parsed || bad !== undefined) {
      valueError(
        "unsupported_character",
        pointer,
        `${name} may not contain ${JSON.stringify(bad ?? "")} (allowed: ${param.pattern})`,
      );
    }
  }
  return value;
}

/**
 * Every parameter's value: `values[name]` (validated) or the schema's default. Throws `DagError`
 * `invalid_parameters` for values that are not an object, an unknown name (the first in sorted
 * order, so the error does not depend on key order) or an invalid value.
 *
 * @example
 * ```ts
 * completeParameterValues(schema, { width: 120 }); // { width: 120, depth: 40, … }
 * ```
 */
export function completeParameterValues(
  schema: ParameterSchema,
  values: Record<string, unknown>,
): Record<string, ParameterValue> {
  if (!isPlainObject(values)) {
    throw new DagError("invalid_parameters", "not_an_object", "", "values must be an object");
  }
  const names = new Set(schema.parameters.map((param) => param.name));
  for (const name of Object.keys(values).sort()) {
    if (!names.has(name)) {
      throw new DagError(
        "invalid_parameters",
        "unknown_parameter",
        jsonPointer(name),
        `there is no parameter ${quoted(name)}`,
      );
    }
  }
  const chosen: Record<string, ParameterValue> = {};
  for (const param of schema.parameters) {
    const given = Object.hasOwn(values, param.name) ? values[param.name] : undefined;
    chosen[param.name] = given === undefined ? param.default : validateParameterValue(param, given);
  }
  return chosen;
}

/** The parameter named `name`, or undefined. */
export function findParameter(
  schema: ParameterSchema,
  name: string,
): ParameterDescriptor | undefined {
  return schema.parameters.find((param) => param.name === name);
}

/**
 * Checks a template's `ParameterInput` nodes against the schema: each names a parameter, its
 * fallback has the parameter's type and is a valid value (and so is `value`, if the template has
 * one). Throws `DagError` `invalid_dag` pointing into the template.
 *
 * @example
 * ```ts
 * assertTemplateParameters(validateDag(template), validateParameterSchema(schemaDoc));
 * ```
 */
export function assertTemplateParameters(template: Dag, schema: ParameterSchema): void {
  const byName = new Map(schema.parameters.map((param) => [param.name, param]));
  for (const [id, node] of Object.entries(template.nodes)) {
    if (node.op !== "ParameterInput") continue;
    const input = node as ParameterInputNode;
    const param = byName.get(input.parameter);
    if (param === undefined) {
      throw new DagError(
        "invalid_dag",
        "unknown_parameter",
        jsonPointer("nodes", id, "parameter"),
        `the schema has no parameter "${input.parameter}"`,
      );
    }
    for (const member of ["fallback", "value"] as const) {
      if (!Object.hasOwn(input, member)) continue;
      try {
        validateParameterValue(param, input[member], jsonPointer("nodes", id, member));
      } catch (err) {
        if (err instanceof DagError) throw err.at(err.pointer, "invalid_dag");
        throw err;
      }
    }
  }
}
