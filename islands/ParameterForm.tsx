/**
 * The parameter form island, generated from `parameters.schema.json` (validated into a
 * `ParameterSchema`): Int/Float as slider + number input (step, unit), Bool as a toggle, Enum as
 * a select, Color as swatches plus a picker, String as a text box (its maxlength, its characters
 * checked as typed, sent on Enter or on leaving the field); labels, descriptions, groups in schema
 * order, and a validation message under a field whose typed value the schema refuses (the same
 * check the kernel runs, so the form never sends what the server would reject). When the design limited a
 * value (the render's `effective`), the field shows the value the model uses and why, and one
 * polite live region announces it. Each control is described (aria-describedby) by its help text
 * and, while the value is refused, by its error message; the switch has one label.
 */
import { Component } from "preact";
import { useState } from "preact/hooks";
import type { EffectiveValue } from "../lib/dag/scene.ts";
import { type EffectiveValueText, effectiveValueText } from "../lib/client/effective_value_text.ts";
import { type ParameterDescriptor, type ParameterSchema } from "../lib/dag/parameter_schema.ts";
import {
  checkParameterValue,
  fieldInputsChanged,
  parameterFieldIds,
} from "../lib/client/parameter_field.ts";

/** Props of the form. */
export interface ParameterFormProps {
  schema: ParameterSchema;
  values: Record<string, unknown>;
  onChange: (name: string, value: unknown) => void;
  disabled?: boolean;
  /** Parameters the design limited in the scene on screen (`RenderResult.effective`). */
  effective?: Record<string, EffectiveValue>;
}

/** The form for `schema`, showing `values`. */
export default function ParameterForm(
  { schema, values, onChange, disabled, effective }: ParameterFormProps,
) {
  const groups = new Map<string, ParameterDescriptor[]>();
  for (const p of schema.parameters) {
    const g = p.group ?? "";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(p);
  }
  const valueOf = (p: ParameterDescriptor) =>
    Object.hasOwn(values, p.name) ? values[p.name] : p.default;
  const limits = new Map<string, EffectiveValueText>();
  for (const p of schema.parameters) {
    const text = effectiveValueText(schema, p.name, valueOf(p), effective);
    if (text) limits.set(p.name, text);
  }
  return (
    <form
      class="cad-form"
      onSubmit={(e) => e.preventDefault()}
      aria-disabled={disabled}
      aria-label="Parameters"
    >
      {[...groups].map(([group, params]) => (
        <fieldset class="cad-form__group" key={group}>
          {group && <legend>{group}</legend>}
          {params.map((p) => (
            <MemoField
              key={p.name}
              param={p}
              value={valueOf(p)}
              onChange={onChange}
              disabled={disabled}
              limit={limits.get(p.name)}
            />
          ))}
        </fieldset>
      ))}
      {/* Always present, so assistive technology announces what is put in it. */}
      <p class="cad-visually-hidden" aria-live="polite" data-effective-announcement="">
        {[...limits.values()].map((t) => t.announcement).join(" ")}
      </p>
    </form>
  );
}

interface FieldProps {
  param: ParameterDescriptor;
  value: unknown;
  /** The form's `onChange`, called with this field's parameter name. */
  onChange: (name: string, value: unknown) => void;
  disabled?: boolean;
  /** The value the model uses instead of `value`, and why. */
  limit?: EffectiveValueText;
}

/**
 * A field that is diffed only when what it shows changed: a slider step re-renders the moved
 * field, not every field of the form (the form is diffed between the change and its request).
 * The form's `onChange` must be stable across renders (the configurator's is).
 */
class MemoField extends Component<FieldProps> {
  override shouldComponentUpdate(next: FieldProps): boolean {
    return fieldInputsChanged(this.props, next);
  }

  override render(props: FieldProps) {
    return <Field {...props} />;
  }
}

function Field({ param, value, onChange, disabled, limit }: FieldProps) {
  const [message, setMessage] = useState<string | null>(null);
  // What the person typed while it is invalid, so the field keeps it next to the message.
  const [draft, setDraft] = useState<string | null>(null);
  const { id, helpId, errorId, describedBy } = parameterFieldIds(param, message !== null);
  const commit = (v: unknown, typed?: string) => {
    const verdict = checkParameterValue(param, v);
    setMessage(verdict.ok ? null : verdict.message);
    setDraft(verdict.ok ? null : typed ?? null);
    if (verdict.ok) onChange(param.name, verdict.value);
  };
  let control;
  switch (param.kind) {
    case "Int":
    case "Float": {
      const step = param.step ?? (param.kind === "Int" ? 1 : undefined);
      const num = typeof value === "number" ? value : Number(param.default);
      control = (
        <div class="cad-range">
          <input
            type="range"
            name={param.name}
            aria-label={param.label}
            aria-describedby={describedBy}
            aria-invalid={message !== null}
            min={param.minimum}
            max={param.maximum}
            step={step ?? "any"}
            value={num}
            disabled={disabled}
            onInput={(e) => commit(Number((e.currentTarget as HTMLInputElement).value))}
          />
          <span class="cad-number">
            <input
              id={id}
              type="number"
              inputMode="decimal"
              min={param.minimum}
              max={param.maximum}
              step={step ?? "any"}
              value={draft ?? num}
              aria-invalid={message !== null}
              aria-describedby={describedBy}
              disabled={disabled}
              onChange={(e) => {
                const raw = (e.currentTarget as HTMLInputElement).value;
                commit(raw === "" ? NaN : Number(raw), raw);
              }}
            />
            {param.unit && <span class="cad-unit">{param.unit}</span>}
          </span>
        </div>
      );
      break;
    }
    case "Bool":
      control = (
        // One label (the field's): the input lies over the track, so a click on it toggles.
        <span class="cad-toggle">
          <input
            id={id}
            type="checkbox"
            role="switch"
            aria-describedby={describedBy}
            checked={value === true}
            disabled={disabled}
            onChange={(e) => commit((e.currentTarget as HTMLInputElement).checked)}
          />
          <span class="cad-toggle__track" aria-hidden="true" />
          <span class="cad-toggle__text" aria-hidden="true">{value === true ? "On" : "Off"}</span>
        </span>
      );
      break;
    case "Enum":
      control = (
        <select
          id={id}
          class="cad-select"
          aria-describedby={describedBy}
          value={String(value)}
          disabled={disabled}
          onChange={(e) => commit((e.currentTarget as HTMLSelectElement).value)}
        >
          {param.enum!.map((choice, i) => (
            <option key={choice} value={choice}>{param.enumLabels?.[i] ?? choice}</option>
          ))}
        </select>
      );
      break;
    case "String":
      // A render per committed value (change: Enter or leaving the field), checked per keystroke.
      control = (
        <input
          id={id}
          type="text"
          class="cad-text"
          maxLength={param.maxLength}
          autocomplete="off"
          spellcheck={false}
          value={draft ?? String(value)}
          aria-invalid={message !== null}
          aria-describedby={describedBy}
          disabled={disabled}
          onInput={(e) => {
            const typed = (e.currentTarget as HTMLInputElement).value;
            const verdict = checkParameterValue(param, typed);
            setDraft(typed);
            setMessage(verdict.ok ? null : verdict.message);
          }}
          onChange={(e) => {
            const typed = (e.currentTarget as HTMLInputElement).value;
            commit(typed, typed);
          }}
        />
      );
      break;
    case "Color":
      control = (
        <div class="cad-colors" role="group" aria-labelledby={`${id}-label`}>
          {(param.swatches ?? []).map((c) => (
            <button
              type="button"
              key={c}
              class={`cad-swatch ${c === value ? "cad-swatch--on" : ""}`}
              title={c}
              aria-label={`${param.label} ${c}`}
              aria-pressed={c === value}
              disabled={disabled}
              data-color={c}
              ref={(el) => {
                if (el) el.style.background = c;
              }}
              onClick={() => commit(c)}
            />
          ))}
          <input
            id={id}
            type="color"
            class="cad-picker"
            aria-describedby={describedBy}
            value={String(value)}
            disabled={disabled}
            onInput={(e) => commit((e.currentTarget as HTMLInputElement).value.toLowerCase())}
          />
        </div>
      );
      break;
  }
  const limitId = `cad-limit-${param.name}`;
  return (
    <div
      class={`cad-field cad-field--${param.kind.toLowerCase()}`}
      data-param={param.name}
      data-limited={limit ? "" : undefined}
    >
      <div class="cad-field__head">
        <label for={id} id={`${id}-label`}>{param.label}</label>
        {(param.kind === "Int" || param.kind === "Float") && (
          <output
            class={`cad-field__value ${limit ? "cad-field__value--limited" : ""}`}
            aria-describedby={limit ? limitId : undefined}
          >
            {limit ? limit.value : `${formatNumber(value)}${param.unit ? ` ${param.unit}` : ""}`}
          </output>
        )}
      </div>
      {control}
      {limit && (
        <p class="cad-field__limit" id={limitId} data-effective-note="">
          <strong>{limit.value}</strong> ({limit.reason})
        </p>
      )}
      {param.description && <p class="cad-field__help" id={helpId}>{param.description}</p>}
      {message && <p class="cad-field__error" id={errorId} role="alert">{message}</p>}
    </div>
  );
}

function formatNumber(v: unknown): string {
  return typeof v === "number" ? String(Math.round(v * 1000) / 1000) : "";
}
