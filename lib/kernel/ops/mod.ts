/**
 * The op table: every op of the DAG format by name, collected from the family files (each op is
 * defined once, in its family). The validator, the evaluator, the schema and docs generator and
 * the cadparam test all look ops up here. The order is the docs' and the schema's.
 */
import { ARITHMETIC_OPS } from "./arithmetic.ts";
import { ASSEMBLY_OPS } from "./assembly.ts";
import { BOOLEAN_OPS } from "./booleans.ts";
import { EXTRUSION_OPS } from "./extrusions.ts";
import { LOGIC_OPS } from "./logic.ts";
import type { OpSpec } from "./op_spec.ts";
import { PARAMETER_OPS } from "./parameters.ts";
import { PATTERN_OPS } from "./patterns.ts";
import { PROFILE_OPS } from "./profiles.ts";
import { SOLID_OPS } from "./solids.ts";
import { TEXT_OPS } from "./text.ts";
import { TRANSFORM_OPS } from "./transforms.ts";

/** Every op of the format by name (look names up with `opSpec`: this is a plain object). */
export const OPS: Readonly<Record<string, OpSpec>> = Object.freeze({
  ...PARAMETER_OPS,
  ...ARITHMETIC_OPS,
  ...LOGIC_OPS,
  ...PROFILE_OPS,
  ...TEXT_OPS,
  ...SOLID_OPS,
  ...EXTRUSION_OPS,
  ...BOOLEAN_OPS,
  ...TRANSFORM_OPS,
  ...PATTERN_OPS,
  ...ASSEMBLY_OPS,
});

/** Every op name the format defines. */
export const DAG_OPS: readonly string[] = Object.freeze(Object.keys(OPS));

/**
 * The spec of an op name, or undefined for anything else (`toString` included).
 *
 * @example
 * ```ts
 * opSpec("sphere")?.result; // SOLID
 * ```
 */
export function opSpec(name: unknown): OpSpec | undefined {
  return typeof name === "string" && Object.hasOwn(OPS, name) ? OPS[name] : undefined;
}
