/**
 * What a parameter form's field needs besides its markup, the same for the Preact island and the
 * npm package's React form: the verdict on a value the shopper gave (the kernel's own check, in a
 * shopper's words when refused) and the field's element ids (`cad-p-<name>` is what partners and
 * tests address a field's control by).
 *
 * Runs in browsers: no Deno APIs here.
 */
import { DagError } from "../dag/dag_errors.ts";
import { type ParameterDescriptor, validateParameterValue } from "../dag/parameter_schema.ts";
import { parameterMessage } from "./parameter_message.ts";

/** The checked value to send, or why it is refused. */
export type ParameterVerdict = { ok: true; value: unknown } | { ok: false; message: string };

/** Checks `value` for `param` as the kernel would. */
export function checkParameterValue(param: ParameterDescriptor, value: unknown): ParameterVerdict {
  try {
    return { ok: true, value: validateParameterValue(param, value) };
  } catch (err) {
    const message = err instanceof DagError ? parameterMessage(param, err, value) : String(err);
    return { ok: false, message };
  }
}

/** A field's ids, and its `aria-describedby` (its help, and its message while it has one). */
export function parameterFieldIds(param: ParameterDescriptor, hasMessage: boolean) {
  const id = `cad-p-${param.name}`;
  const helpId = `cad-help-${param.name}`;
  const errorId = `cad-error-${param.name}`;
  const describedBy = [param.description && helpId, hasMessage && errorId]
    .filter(Boolean).join(" ") || undefined;
  return { id, helpId, errorId, describedBy };
}
