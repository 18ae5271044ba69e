/**
 * The model in words, for assistive technology: what the 3D view's description says (the parts,
 * their instance counts, the overall size from the scene's bounding box, the triangle count) and
 * what the view's one polite live region announces while and after it renders. Framework-free,
 * so the Preact and React viewers say the same thing.
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { RenderResult } from "./render_result.ts";

/** The scene's overall size, "52 × 52 × 14 mm" (width × depth × height, kernel axes x, y, z). */
export function sizeText(result: Pick<RenderResult, "bbox">, unit = "mm"): string {
  const d = result.bbox.max.map((m, i) => m - result.bbox.min[i]);
  return `${d.map(formatLength).join(" × ")} ${unit}`;
}

/**
 * A count with comma thousands separators, "4,320" — what `toLocaleString("en")` writes for an
 * integer, without its cost on a page's first call: Chromium loads its ICU number data then, 24–61
 * ms measured here on a fresh page, which the configurator paid between the first render's answer
 * and the first model (the footer and the view's description both show the triangle count).
 */
export function countText(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n < 0 ? `-${grouped}` : grouped;
}

/** The triangle count in words, "4,320 triangles" (the view's description and the footer). */
export function trianglesText(result: Pick<RenderResult, "triangles">): string {
  return `${countText(result.triangles)} triangles`;
}

/** "1 part" / "3 parts: Bracket, Screw (4 instances), Gusset (2 instances)". */
export function partsText(result: Pick<RenderResult, "parts">): string {
  const parts = result.parts.filter((p) => p.instances.length > 0);
  const count = `${parts.length} ${parts.length === 1 ? "part" : "parts"}`;
  if (parts.length === 0) return "no parts";
  const names = parts.map((p) =>
    p.instances.length > 1 ? `${p.name} (${p.instances.length} instances)` : p.name
  );
  return `${count}: ${names.join(", ")}`;
}

/**
 * The view's description: "Spur gear. 52 × 52 × 14 mm (width × depth × height). 1 part: gear.
 * 4,320 triangles."
 *
 * @example
 * ```ts
 * describeModel(result, "Spur gear");
 * ```
 */
export function describeModel(result: RenderResult, title: string, unit = "mm"): string {
  return `${title}. ${sizeText(result, unit)} (width × depth × height). ${partsText(result)}. ` +
    `${trianglesText(result)}.`;
}

/** What the live region says when a render completed: "Model updated: 52 × 52 × 14 mm, 1 part". */
export function renderedAnnouncement(result: RenderResult, unit = "mm"): string {
  const n = result.parts.filter((p) => p.instances.length > 0).length;
  return `Model updated: ${sizeText(result, unit)}, ${n} ${n === 1 ? "part" : "parts"}`;
}

/** The live region's words while a render is on its way (first one: "Loading model…"). */
export function renderingAnnouncement(first: boolean): string {
  return first ? "Loading model…" : "Updating model…";
}

function formatLength(v: number): string {
  const r = Math.round(v * 10) / 10;
  return Number.isInteger(r) ? String(r) : r.toFixed(1);
}
