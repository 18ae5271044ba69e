/**
 * What a form says about a parameter the design limited (the render response's `scene.effective`,
 * docs/api.md): the value the model really uses and why, in a shopper's words — "43 mm (limited
 * by Teeth and Module: max 43 mm)". Framework-free, so the Preact form and a React one say the
 * same thing.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { ParameterSchema } from "../dag/parameter_schema.ts";
import type { EffectiveValue } from "../dag/scene.ts";

/** The words for one limited parameter. */
export interface EffectiveValueText {
  /** The value the model uses, with its unit ("43 mm"). */
  value: string;
  /** Why, with the bound ("limited by Teeth and Module: max 43 mm"). */
  reason: string;
  /** One sentence for a screen reader ("Hub diameter: the model uses 43 mm, …"). */
  announcement: string;
}

/**
 * The text for parameter `name` when `effective` limits it at the value the form holds
 * (`current`); null when it is not limited, or the report is for another value (a render still on
 * its way). `by` names are shown as the schema's labels, in schema order.
 *
 * @example
 * ```ts
 * effectiveValueText(schema, "hubDiameter", 60, result.effective)?.reason;
 * // "limited by Teeth and Module: max 43 mm"
 * ```
 */
export function effectiveValueText(
  schema: ParameterSchema,
  name: string,
  current: unknown,
  effective: Record<string, EffectiveValue> | undefined,
): EffectiveValueText | null {
  const limit = effective && Object.hasOwn(effective, name) ? effective[name] : undefined;
  if (!limit || typeof current !== "number" || !sameNumber(limit.requested, current)) return null;
  const param = schema.parameters.find((p) => p.name === name);
  const unit = param?.unit ? ` ${param.unit}` : "";
  const value = `${formatValue(limit.value)}${unit}`;
  const labels = schema.parameters.filter((p) => limit.by.includes(p.name)).map((p) => p.label);
  const who = labels.length > 0 ? listOf(labels) : "the design";
  const reason = `limited by ${who}: ${limit.bound} ${value}`;
  const label = param?.label ?? name;
  return { value, reason, announcement: `${label}: the model uses ${value}, ${reason}.` };
}

/**
 * Whether two renders' `effective` reports say the same (each answer carries its own object, so a
 * form can keep the one it has and skip a re-render).
 *
 * @example
 * ```ts
 * sameEffective({}, {}); // true
 * sameEffective(undefined, {}); // false
 * ```
 */
export function sameEffective(
  a: Record<string, EffectiveValue> | undefined,
  b: Record<string, EffectiveValue> | undefined,
): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => {
    const x = a[name];
    const y = Object.hasOwn(b, name) ? b[name] : undefined;
    return y !== undefined && x.requested === y.requested && x.value === y.value &&
      x.bound === y.bound && x.by.length === y.by.length && x.by.every((n, i) => n === y.by[i]);
  });
}

/**
 * The `effective` report a form should show: `kept` while `next` says the same (each answer carries
 * its own object, usually empty, and a new object would re-render the form before its frame).
 *
 * @example
 * ```ts
 * const kept = {};
 * keptEffective(kept, {}) === kept; // true
 * ```
 */
export function keptEffective(
  kept: Record<string, EffectiveValue> | undefined,
  next: Record<string, EffectiveValue> | undefined,
): Record<string, EffectiveValue> | undefined {
  return sameEffective(kept, next) ? kept : next;
}

/** A number as a form shows it: at most three decimals, no trailing zeros. */
export function formatValue(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}

function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
