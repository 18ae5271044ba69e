/**
 * The RFC 8785 canonical JSON of a template's instances without canonicalizing each instance.
 *
 * An instance differs from its template only in the `value` of each ParameterInput node (checked
 * by `assertInstanceOf`), and canonical JSON sorts members by name, so every instance's canonical
 * text is the same sequence of fixed pieces with the canonical values in between. The pieces are
 * computed once per template (the template's shape with a unique marker as every value,
 * canonicalized and cut at the markers); an instance's text is then those pieces joined with its
 * values: the work is proportional to the number of parameters, not to the size of the DAG, and
 * the text (so the DAG hash and the cache key) is exactly `canonicalDagJson(instance)`.
 *
 * Runs in browsers too: no Deno APIs here.
 */
import { canonicalDagJson, canonicalJson } from "./canonical_dag.ts";
import type { Dag, ParameterInputNode } from "./dag_types.ts";
import { mapParameterInputs } from "./substitute.ts";

/** A template's canonical text, cut where its ParameterInput values go. */
interface CanonicalSkeleton {
  /** ParameterInput node ids, in the order their values appear in the text. */
  readonly slots: readonly string[];
  /** `slots.length + 1` pieces of text around the values. */
  readonly pieces: readonly string[];
}

/** Skeletons per template object; null for a template that has none (its instances are then
 * canonicalized whole). */
const skeletons = new WeakMap<Dag, CanonicalSkeleton | null>();

/**
 * The canonical JSON of `instance`, an instance of `template` with a `value` in every
 * ParameterInput node: exactly `canonicalDagJson(instance)`. Only the values of `instance` are
 * read, so call this only after `assertInstanceOf`'s checks have passed.
 *
 * @example
 * ```ts
 * const text = instanceCanonicalJson(template, instance); // === canonicalDagJson(instance)
 * ```
 */
export function instanceCanonicalJson(template: Dag, instance: Dag): string {
  let skeleton = skeletons.get(template);
  if (skeleton === undefined) {
    skeleton = buildSkeleton(template);
    skeletons.set(template, skeleton);
  }
  return skeleton ? fill(skeleton, instance) : canonicalDagJson(instance);
}

function fill(skeleton: CanonicalSkeleton, instance: Dag): string {
  const { slots, pieces } = skeleton;
  let text = pieces[0];
  for (let k = 0; k < slots.length; k++) {
    const node = instance.nodes[slots[k]] as ParameterInputNode;
    text += canonicalJson(node.value) + pieces[k + 1];
  }
  return text;
}

/**
 * Cuts the canonical text of the template, with a marker as every value, at the markers. The
 * result is checked once against the canonical text of the template with its fallbacks as values:
 * a template that happens to contain a marker gets no skeleton instead of a wrong one.
 */
function buildSkeleton(template: Dag): CanonicalSkeleton | null {
  const marker = `\u0001slot-${Math.random().toString(36).slice(2)}:`;
  const ids: string[] = [];
  const valued = (value: (node: ParameterInputNode, id: string) => unknown) =>
    mapParameterInputs(template, (node, id) => {
      const rest = Object.entries(node).filter(([name]) => name !== "value");
      return Object.fromEntries([...rest, ["value", value(node, id)]]) as ParameterInputNode;
    });
  const text = canonicalJson(valued((_, id) => (ids.push(id), marker + id)));
  const found = ids
    .map((id) => ({ id, at: text.indexOf(JSON.stringify(marker + id)) }))
    .sort((a, b) => a.at - b.at);
  const pieces: string[] = [];
  let from = 0;
  for (const { id, at } of found) {
    if (at < from) return null;
    pieces.push(text.slice(from, at));
    from = at + JSON.stringify(marker + id).length;
  }
  pieces.push(text.slice(from));
  const skeleton = { slots: found.map((slot) => slot.id), pieces };
  const withFallbacks = valued((node) => node.fallback);
  return fill(skeleton, withFallbacks) === canonicalDagJson(withFallbacks) ? skeleton : null;
}
