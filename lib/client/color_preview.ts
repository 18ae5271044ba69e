/**
 * Instant color changes: when a Color parameter's only use in the template is the `color` of
 * parts, changing it changes those parts' color and nothing else, so the view can show the new
 * color at once, on the meshes it already holds, while the render of the new values is on its way.
 * The kernel stays the authority: its answer replaces the preview, and a failed render takes the
 * preview back (islands/Configurator.tsx). Anything less certain — a color that also reaches
 * geometry or a branch, a part name two parts share with other colors, a computed part name —
 * gets no preview and waits for the render as every other change does.
 *
 * Runs in browsers: no Deno APIs here.
 */
import {
  COLOR_PATTERN,
  type Dag,
  isParameterInput,
  isRef,
  referencedIds,
} from "../dag/dag_types.ts";
import type { ParameterSchema } from "../dag/parameter_schema.ts";
import type { RenderResult } from "./render_result.ts";

/** For each Color parameter that only colors parts: the names of the parts it colors. */
export type ColorRoutes = ReadonlyMap<string, ReadonlySet<string>>;

/** Where one part node's color comes from: a routed parameter, or anything else. */
type ColorSource = { parameter: string } | "other";

/**
 * The Color parameters of `schema` whose every use in `template` is a part's `color` member,
 * referenced directly, with the names of the parts they color. A part name is left out when two
 * part nodes with that name take their colors from different places, and every route is left out
 * when a part's name is computed (it could be any name).
 *
 * @example
 * ```ts
 * const routes = colorRoutes(project.template, project.schema);
 * routes.get("color"); // Set { "Gear" } for the spur gear
 * ```
 */
export function colorRoutes(template: Dag, schema: ParameterSchema): ColorRoutes {
  const colorParameters = new Set(
    schema.parameters.filter((p) => p.kind === "Color").map((p) => p.name),
  );
  // The kernel validates templates; a node that is not an object here gets no route, not a crash.
  if (Object.values(template.nodes).some((node) => typeof node !== "object" || node === null)) {
    return new Map();
  }
  // Each Color parameter's slots (a template may hold several slots for one parameter).
  const slotOf = new Map<string, string>();
  for (const [id, node] of Object.entries(template.nodes)) {
    if (isParameterInput(node) && colorParameters.has(node.parameter)) {
      slotOf.set(id, node.parameter);
    }
  }
  const elsewhere = new Set<string>();
  const sourcesByName = new Map<string, ColorSource[]>();
  for (const node of Object.values(template.nodes)) {
    const members = node as unknown as Record<string, unknown>;
    if (node.op === "part") {
      if (typeof members.name !== "string") return new Map();
      const color = members.color;
      const parameter = isRef(color) ? slotOf.get(color.ref) : undefined;
      const list = sourcesByName.get(members.name) ?? [];
      list.push(parameter === undefined ? "other" : { parameter });
      sourcesByName.set(members.name, list);
    }
    // Every reference but a part's color: a Color slot referenced there is used elsewhere.
    for (const id of referencedIds(node.op === "part" ? { ...node, color: null } : node)) {
      const parameter = slotOf.get(id);
      if (parameter !== undefined) elsewhere.add(parameter);
    }
  }
  const routes = new Map<string, Set<string>>();
  for (const [name, sources] of sourcesByName) {
    const first = sources[0];
    if (first === "other") continue;
    const same = sources.every((s) => s !== "other" && s.parameter === first.parameter);
    if (!same || elsewhere.has(first.parameter)) continue;
    const names = routes.get(first.parameter) ?? new Set<string>();
    names.add(name);
    routes.set(first.parameter, names);
  }
  return routes;
}

/**
 * `result` recolored for `values`, when the two differ only in routed Color parameters (each a
 * `#rrggbb` color); otherwise null, and the change waits for its render. The preview keeps the
 * result's meshes, bounds and hash: only part colors and `values` change.
 *
 * @example
 * ```ts
 * const preview = previewColors(result, { ...result.values, color: "#2e86ab" }, routes);
 * preview?.parts[0].color; // "#2e86ab"
 * ```
 */
export function previewColors(
  result: RenderResult,
  values: Record<string, unknown>,
  routes: ColorRoutes,
): RenderResult | null {
  if (routes.size === 0) return null;
  const colorOf = new Map<string, string>();
  const names = new Set([...Object.keys(result.values), ...Object.keys(values)]);
  for (const name of names) {
    const next = values[name];
    if (Object.is(result.values[name], next)) continue;
    const parts = routes.get(name);
    if (!parts || typeof next !== "string" || !COLOR_PATTERN.test(next)) return null;
    for (const part of parts) colorOf.set(part, next);
  }
  if (colorOf.size === 0) return null;
  return {
    ...result,
    values: { ...values },
    parts: result.parts.map((part) => {
      const color = colorOf.get(part.name);
      return color === undefined ? part : { ...part, color };
    }),
  };
}
