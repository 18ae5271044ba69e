/**
 * The parameter schema's refusal of a typed value, in words a shopper understands (for forms built
 * on the framework-free core: the Preact island and the npm package's React `ParameterForm`).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { DagError } from "../dag/dag_errors.ts";
import type { ParameterDescriptor } from "../dag/parameter_schema.ts";

/** The message for `err` (from `validateParameterValue`) on `param`. */
export function parameterMessage(
  param: ParameterDescriptor,
  err: DagError,
): string {
  const unit = param.unit ? ` ${param.unit}` : "";
  switch (err.reason) {
    case "out_of_range":
      return `Enter a value from ${param.minimum} to ${param.maximum}${unit}.`;
    case "bad_step":
      return `Use steps of ${param.step}${unit} (from ${param.minimum}).`;
    case "not_an_integer":
      return "Enter a whole number.";
    case "type_mismatch":
      return "Enter a number.";
    case "bad_color":
      return "Pick a color such as #4a6fa5.";
    default:
      return err.message;
  }
}
