/**
 * What a parameter form's field needs besides its markup, the same for the Preact island and the
 * npm package's React form: the verdict on a value the shopper gave (the kernel's own check, in a
 * shopper's words when refused), the field's element ids (`cad-p-<name>` is what partners and
 * tests address a field's control by), and whether a field must be diffed again.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { DagError } from "../dag/dag_errors.ts";
import { type ParameterDescriptor, validateParameterValue } from "../dag/parameter_schema.ts";
import { parameterMessage } from "./parameter_message.ts";
import type { EffectiveValueText } from "./effective_value_text.ts";

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

/** What a field shows: its parameter, value, change handler, state and the design's limit. */
export interface FieldInputs {
  param: ParameterDescriptor;
  value: unknown;
  onChange: unknown;
  disabled?: boolean;
  limit?: EffectiveValueText | null;
}

/**
 * Whether a field showing `now` must be rendered again to show `next`: a slider step changes one
 * field's value, so the form's other fields are not diffed (their limit texts are compared by
 * content, since the form builds them anew on each render).
 *
 * @example
 * ```ts
 * fieldInputsChanged({ param, value: 24, onChange }, { param, value: 25, onChange }); // true
 * ```
 */
export function fieldInputsChanged(now: FieldInputs, next: FieldInputs): boolean {
  return now.param !== next.param || !Object.is(now.value, next.value) ||
    now.onChange !== next.onChange || now.disabled !== next.disabled ||
    now.limit?.value !== next.limit?.value || now.limit?.reason !== next.limit?.reason ||
    now.limit?.announcement !== next.limit?.announcement;
}
