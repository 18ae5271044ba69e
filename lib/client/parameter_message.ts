/**
 * The parameter schema's refusal of a typed value, in words a shopper understands (for forms built
 * on the framework-free core: the Preact island and the npm package's React `ParameterForm`).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { DagError } from "../dag/dag_errors.ts";
import type { ParameterDescriptor } from "../dag/parameter_schema.ts";
import { describeCharacters, firstDisallowed, parseStringPattern } from "../dag/string_pattern.ts";

/** The message for `err` (from `validateParameterValue`) on `param`, given `value`. */
export function parameterMessage(
  param: ParameterDescriptor,
  err: DagError,
  value?: unknown,
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
      return param.kind === "String" ? "Enter text." : "Enter a number.";
    case "bad_color":
      return "Pick a color such as #4a6fa5.";
    case "string_too_long":
      return `Use at most ${param.maxLength} characters.`;
    case "bad_length":
      return `Use at least ${param.minLength} character${param.minLength === 1 ? "" : "s"}.`;
    case "unsupported_character":
      return charactersMessage(param.pattern, value) ?? err.message;
    default:
      return err.message;
  }
}

/** "“✓” cannot be used here. Use A–Z, a–z, 0–9 and space." for a String's pattern. */
function charactersMessage(pattern: string | undefined, value: unknown): string | undefined {
  if (pattern === undefined) return undefined;
  const parsed = parseStringPattern(pattern);
  if ("error" in parsed) return undefined;
  const bad = typeof value === "string" ? firstDisallowed(value, parsed.ranges) : undefined;
  const lead = bad === undefined ? "" : `“${bad}” cannot be used here. `;
  return `${lead}Use only ${describeCharacters(parsed.ranges)}.`;
}
