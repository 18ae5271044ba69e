/**
 * The one error type of DAG and parameter checking. Every refusal names the rule it broke
 * (`reason`, stable snake_case) and where (`pointer`, RFC 6901 into the document that was checked),
 * so a partner's editor can highlight the exact member and the problem response can carry both.
 *
 * Runs in browsers too: no Deno APIs here.
 */

/** The problem codes a DAG or parameter check can end in (all 422, see `lib/http/error_codes.ts`). */
export type DagErrorCode = "invalid_dag" | "invalid_parameters" | "invalid_parameter_schema";

/**
 * Every stable `reason`. Grouped by what they are about; several are shared by the DAG, the
 * parameter values and the parameter schema, with the pointer telling which document is meant.
 */
export const DAG_ERROR_REASONS = [
  // Document structure
  "not_an_object", // the document, `nodes`, a node, the schema or `values` is not a plain object
  "unknown_member", // a member the format does not define (or not for this op / kind)
  "missing_member", // a required member is absent
  "unsupported_version", // `dag` is not 1
  "bad_node_id", // node id not 1–64 of [A-Za-z0-9_.-], or an Object.prototype name
  "bad_parameter_name", // same rule for parameter names
  "too_many_nodes", // more nodes than the limit
  "unknown_op", // `op` is not one of the format's ops
  // Values and references
  "type_mismatch", // wrong JSON type, or a reference to a node of the wrong result type
  "bad_reference", // an object where a value is expected that is not exactly {"ref": "<id>"}
  "unknown_reference", // a reference (or `output`) to an id that is not a node
  "cycle", // references form a cycle (including a self-reference)
  "out_of_range", // a number outside its allowed range (or not finite)
  "not_an_integer", // a count, segments, divisions or Int value that is not an integer
  "bad_length", // an array (or a string) with too few or too many elements
  "string_too_long", // a string longer than the limit
  "unsupported_character", // text with a character the font does not draw, or outside a pattern
  "bad_color", // not a lowercase `#rrggbb`
  "bad_choice", // a value that is not one of the allowed choices
  "division_by_zero", // `div` with a literal 0 divisor
  "not_counter_clockwise", // a literal polygon that is clockwise or degenerate
  // Whole-graph limits and output
  "expanded_cost", // the DAG with every reference inlined exceeds the limit
  "too_many_instances", // a repeat places more instances than the limit
  "output_not_assembly", // `output` does not name an assembly
  "duplicate_part_name", // two parts of one assembly share a name
  // Parameters, templates, instances
  "unknown_parameter", // a value or ParameterInput names no parameter of the schema
  "bad_step", // a value is not minimum + k·step
  "duplicate_name", // a name listed twice (`x-order`, `enum`)
  "missing_value", // a finished DAG has a ParameterInput without `value`
  "inconsistent_values", // two ParameterInputs of one parameter carry different values
  "not_an_instance", // a finished DAG is not the template with values filled in
  "files_swapped", // a parameter schema given as the template and a DAG as the schema
] as const;

/** A stable, machine-readable reason for a DagError. */
export type DagErrorReason = typeof DAG_ERROR_REASONS[number];

/**
 * A refused DAG, parameter value or parameter schema.
 *
 * @example
 * ```ts
 * throw new DagError("invalid_dag", "cycle", "/nodes/a/args/0", "node a references itself");
 * ```
 */
export class DagError extends Error {
  /** The problem code (maps to an HTTP status in `lib/http/error_codes.ts`). */
  readonly code: DagErrorCode;
  /** The rule that was broken. */
  readonly reason: DagErrorReason;
  /** RFC 6901 JSON pointer into the checked document ("" is the whole document). */
  readonly pointer: string;

  /** Builds the error; `message` is a human sentence for the problem's `detail`. */
  constructor(code: DagErrorCode, reason: DagErrorReason, pointer: string, message: string) {
    super(message);
    this.name = "DagError";
    this.code = code;
    this.reason = reason;
    this.pointer = pointer;
  }

  /** The same error re-anchored at another pointer and code (e.g. a value inside a finished DAG). */
  at(pointer: string, code: DagErrorCode = this.code): DagError {
    return new DagError(code, this.reason, pointer, this.message);
  }
}

/**
 * Builds an RFC 6901 JSON pointer from reference tokens, escaping `~` and `/`.
 *
 * @example
 * ```ts
 * jsonPointer("nodes", "a/b", 0); // "/nodes/a~1b/0"
 * ```
 */
export function jsonPointer(...tokens: (string | number)[]): string {
  let out = "";
  for (const token of tokens) {
    out += "/" + String(token).replaceAll("~", "~0").replaceAll("/", "~1");
  }
  return out;
}

/**
 * Names that must not be used as node ids or parameter names: a node named `__proto__` or
 * `constructor` is harmless in a JSON-parsed object but turns into prototype pollution or an
 * inherited lookup the moment any consumer writes `map[id] = …` or reads `map[id]`.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "constructor",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  "prototype",
]);

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** Whether `name` is a valid node id or parameter name (1–64 of `[A-Za-z0-9_.-]`, not reserved). */
export function isValidName(name: string): boolean {
  return NAME_PATTERN.test(name) && !RESERVED_NAMES.has(name);
}

/** Whether `value` is a plain JSON object (not an array, not a class instance, no odd prototype). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A value for an error message: a string quoted and cut to 64 characters (a hostile id or member
 * name can be as long as the body), anything else by its JSON type.
 */
export function quoted(value: unknown): string {
  if (typeof value !== "string") return jsonTypeName(value);
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/** A short description of a JSON value's type for messages ("array", "null", "string", …). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
