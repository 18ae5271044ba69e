/**
 * The parameter form for React, generated from a validated `ParameterSchema`: Int/Float as slider
 * plus number box (step, unit), Bool as a switch, Enum as a select, Color as swatches plus a
 * picker, String as a text box (maxlength; characters checked per keystroke, sent on Enter or
 * blur); groups in schema order; a typed value the schema refuses (the kernel's own check,
 * `checkParameterValue`) shows a message under its field and is never sent. When the design
 * limits a value (the render's `effective`), the field shows the value the model uses and why, and
 * one polite live region announces it — the same words as the Preact form (effective_value_text).
 * Each control is described (aria-describedby) by its help text and, while refused, its error;
 * the switch has one label (the field's), as in islands/ParameterForm.tsx.
 */
import { createElement as h, memo, type ReactNode, useState } from "react";
import {
  type ParameterDescriptor,
  type ParameterSchema,
} from "../../../../lib/dag/parameter_schema.ts";
import {
  checkParameterValue,
  fieldInputsChanged,
  parameterFieldIds,
} from "../../../../lib/client/parameter_field.ts";
import {
  type EffectiveValueText,
  effectiveValueText,
} from "../../../../lib/client/effective_value_text.ts";
import type { EffectiveValue } from "../../../../lib/dag/scene.ts";
import { useConfiguratorStyles } from "./use_configurator_styles.ts";

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
export function ParameterForm(props: ParameterFormProps): ReactNode {
  useConfiguratorStyles();
  const groups = new Map<string, ParameterDescriptor[]>();
  for (const p of props.schema.parameters) {
    const g = p.group ?? "";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(p);
  }
  const valueOf = (p: ParameterDescriptor) =>
    Object.hasOwn(props.values, p.name) ? props.values[p.name] : p.default;
  const limits = new Map<string, EffectiveValueText>();
  for (const p of props.schema.parameters) {
    const text = effectiveValueText(
      props.schema,
      p.name,
      valueOf(p),
      props.effective,
    );
    if (text) limits.set(p.name, text);
  }
  return h(
    "form",
    {
      className: "cad-form",
      onSubmit: (e: { preventDefault(): void }) => e.preventDefault(),
      "aria-disabled": props.disabled,
      "aria-label": "Parameters",
    },
    [...groups].map(([group, params]) =>
      h(
        "fieldset",
        { className: "cad-form__group", key: group },
        group ? h("legend", null, group) : null,
        params.map((p) =>
          h(MemoField, {
            key: p.name,
            param: p,
            value: valueOf(p),
            onChange: props.onChange,
            disabled: props.disabled,
            limit: limits.get(p.name),
          })
        ),
      )
    ),
    // Always present, so assistive technology announces what is put in it.
    h(
      "p",
      {
        className: "cad-visually-hidden",
        "aria-live": "polite",
        "data-effective-announcement": "",
      },
      [...limits.values()].map((t) => t.announcement).join(" "),
    ),
  );
}

interface FieldProps {
  param: ParameterDescriptor;
  value: unknown;
  /** The form's `onChange`, called with this field's parameter name. */
  onChange: (name: string, value: unknown) => void;
  disabled?: boolean;
  /** The value the model uses instead, and why (the design limited it). */
  limit?: EffectiveValueText;
}

/**
 * A field rendered again only when what it shows changed (`fieldInputsChanged`): a slider step
 * re-renders the moved field, not the whole form. The form's `onChange` should be stable across
 * renders (the configurator's is); a new one each render re-renders every field, as before.
 */
const MemoField = memo(Field, (now, next) => !fieldInputsChanged(now, next));

function Field(
  { param, value, onChange, disabled, limit }: FieldProps,
): ReactNode {
  const [message, setMessage] = useState<string | null>(null);
  // What the person is typing (or typed, while invalid), shown instead of the value.
  const [draft, setDraft] = useState<string | null>(null);
  const { id, helpId, errorId, describedBy } = parameterFieldIds(param, message !== null);
  const commit = (v: unknown, typed?: string) => {
    const verdict = checkParameterValue(param, v);
    setMessage(verdict.ok ? null : verdict.message);
    setDraft(verdict.ok ? null : typed ?? null);
    if (verdict.ok) onChange(param.name, verdict.value);
  };
  let control: ReactNode = null;
  switch (param.kind) {
    case "Int":
    case "Float": {
      const step = param.step ?? (param.kind === "Int" ? 1 : undefined);
      const num = typeof value === "number" ? value : Number(param.default);
      const commitTyped = (raw: string) => commit(raw === "" ? NaN : Number(raw), raw);
      control = h(
        "div",
        { className: "cad-range" },
        h("input", {
          type: "range",
          name: param.name,
          "aria-label": param.label,
          "aria-describedby": describedBy,
          "aria-invalid": message !== null,
          min: param.minimum,
          max: param.maximum,
          step: step ?? "any",
          value: num,
          disabled,
          onChange: (e: { currentTarget: HTMLInputElement }) =>
            commit(Number(e.currentTarget.value)),
        }),
        h(
          "span",
          { className: "cad-number" },
          h("input", {
            id,
            type: "number",
            inputMode: "decimal",
            min: param.minimum,
            max: param.maximum,
            step: step ?? "any",
            value: draft ?? String(num),
            "aria-invalid": message !== null,
            "aria-describedby": describedBy,
            disabled,
            // React's onChange fires per keystroke: keep the draft, commit on Enter or blur.
            onChange: (e: { currentTarget: HTMLInputElement }) => setDraft(e.currentTarget.value),
            onBlur: (e: { currentTarget: HTMLInputElement }) =>
              draft !== null && commitTyped(e.currentTarget.value),
            onKeyDown: (e: { key: string; currentTarget: HTMLInputElement }) =>
              e.key === "Enter" && commitTyped(e.currentTarget.value),
          }),
          param.unit ? h("span", { className: "cad-unit" }, param.unit) : null,
        ),
      );
      break;
    }
    case "Bool":
      // One label (the field's): the input lies over the track, so a click on it toggles.
      control = h(
        "span",
        { className: "cad-toggle" },
        h("input", {
          id,
          type: "checkbox",
          role: "switch",
          "aria-describedby": describedBy,
          checked: value === true,
          disabled,
          onChange: (e: { currentTarget: HTMLInputElement }) => commit(e.currentTarget.checked),
        }),
        h("span", { className: "cad-toggle__track", "aria-hidden": true }),
        h(
          "span",
          { className: "cad-toggle__text", "aria-hidden": true },
          value === true ? "On" : "Off",
        ),
      );
      break;
    case "Enum":
      control = h(
        "select",
        {
          id,
          className: "cad-select",
          "aria-describedby": describedBy,
          value: String(value),
          disabled,
          onChange: (e: { currentTarget: HTMLSelectElement }) => commit(e.currentTarget.value),
        },
        param.enum!.map((choice, i) =>
          h(
            "option",
            { key: choice, value: choice },
            param.enumLabels?.[i] ?? choice,
          )
        ),
      );
      break;
    case "String": {
      // React's onChange fires per keystroke: check each, send on Enter or blur.
      const typedCheck = (typed: string) => {
        const verdict = checkParameterValue(param, typed);
        setDraft(typed);
        setMessage(verdict.ok ? null : verdict.message);
      };
      control = h("input", {
        id,
        type: "text",
        className: "cad-text",
        maxLength: param.maxLength,
        autoComplete: "off",
        spellCheck: false,
        value: draft ?? String(value),
        "aria-invalid": message !== null,
        "aria-describedby": describedBy,
        disabled,
        onChange: (e: { currentTarget: HTMLInputElement }) => typedCheck(e.currentTarget.value),
        onBlur: (e: { currentTarget: HTMLInputElement }) =>
          draft !== null && commit(e.currentTarget.value, e.currentTarget.value),
        onKeyDown: (e: { key: string; currentTarget: HTMLInputElement }) =>
          e.key === "Enter" && commit(e.currentTarget.value, e.currentTarget.value),
      });
      break;
    }
    case "Color":
      control = h(
        "div",
        {
          className: "cad-colors",
          role: "group",
          "aria-labelledby": `${id}-label`,
        },
        (param.swatches ?? []).map((c) =>
          h("button", {
            type: "button",
            key: c,
            className: `cad-swatch ${c === value ? "cad-swatch--on" : ""}`,
            title: c,
            "aria-label": `${param.label} ${c}`,
            "aria-pressed": c === value,
            disabled,
            "data-color": c,
            style: { background: c },
            onClick: () => commit(c),
          })
        ),
        h("input", {
          id,
          type: "color",
          className: "cad-picker",
          "aria-describedby": describedBy,
          value: String(value),
          disabled,
          onChange: (e: { currentTarget: HTMLInputElement }) =>
            commit(e.currentTarget.value.toLowerCase()),
        }),
      );
      break;
  }
  const numeric = param.kind === "Int" || param.kind === "Float";
  const limitId = `cad-limit-${param.name}`;
  return h(
    "div",
    {
      className: `cad-field cad-field--${param.kind.toLowerCase()}`,
      "data-param": param.name,
      "data-limited": limit ? "" : undefined,
    },
    h(
      "div",
      { className: "cad-field__head" },
      h("label", { htmlFor: id, id: `${id}-label` }, param.label),
      numeric
        ? h(
          "output",
          {
            className: `cad-field__value ${limit ? "cad-field__value--limited" : ""}`,
            "aria-describedby": limit ? limitId : undefined,
          },
          limit ? limit.value : formatNumber(value) + (param.unit ? ` ${param.unit}` : ""),
        )
        : null,
    ),
    control,
    limit
      ? h(
        "p",
        {
          className: "cad-field__limit",
          id: limitId,
          "data-effective-note": "",
        },
        h("strong", null, limit.value),
        ` (${limit.reason})`,
      )
      : null,
    param.description
      ? h("p", { className: "cad-field__help", id: helpId }, param.description)
      : null,
    message
      ? h(
        "p",
        { className: "cad-field__error", id: errorId, role: "alert" },
        message,
      )
      : null,
  );
}

function formatNumber(v: unknown): string {
  return typeof v === "number" ? String(Math.round(v * 1000) / 1000) : "";
}
