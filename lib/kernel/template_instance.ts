/**
 * Frozen templates (docs/dag.md): the kernel renders only *instances* of a project's template, a
 * finished DAG that is the template exactly, except for the `value` of each `ParameterInput`,
 * and whose values are all valid. The template is stored with its shape hash (what identifies it);
 * the render path compares a DAG with the template in one walk that skips the values, without
 * copying, canonicalizing or hashing either (equal as JSON is exactly equal shape hashes), and
 * the comparison that finds *where* a DAG departs from the template runs only when it does.
 * A DAG of the template's exact shape is not validated whole again (the template was): only its
 * values are, and its DAG hash is computed from the template's canonical skeleton
 * (instance_canonical.ts). Anything else is validated whole first, so its first error is reported.
 *
 * Runs in browsers too: no Deno APIs here.
 */

import { dagHash, sha256Hex } from "../dag/canonical_dag.ts";
import { DagError, jsonPointer } from "../dag/dag_errors.ts";
import { type DagLimits, resolveDagLimits } from "../dag/dag_limits.ts";
import {
  type Dag,
  isParameterInput,
  type ParameterInputNode,
  type ParameterValue,
} from "../dag/dag_types.ts";
import { assertInputValue, validateDag } from "./dag_validate.ts";
import { instanceCanonicalJson } from "../dag/instance_canonical.ts";
import { type ParameterSchema, validateParameterValue } from "../dag/parameter_schema.ts";
import { mapParameterInputs } from "../dag/substitute.ts";

/**
 * A copy of `dag` with every `ParameterInput.value` removed: what the template was.
 *
 * @example
 * ```ts
 * templateShape(substitute(template, schema, values)); // deep-equals templateShape(template)
 * ```
 */
export function templateShape(dag: Dag): Dag {
  return mapParameterInputs(dag, (node) => {
    const entries = Object.entries(node).filter(([key]) => key !== "value");
    return Object.fromEntries(entries) as unknown as ParameterInputNode;
  });
}

/**
 * The hash a template is stored with: the DAG hash of its shape (values, if any, removed).
 *
 * @example
 * ```ts
 * const hash = await templateHash(validateDag(templateDoc)); // stored with the project version
 * ```
 */
export function templateHash(template: Dag): Promise<string> {
  return dagHash(templateShape(template));
}

/**
 * Checks that `finished` is a valid DAG, an instance of `template` (whose shape hashes to
 * `templateHash`: a template that does not is no template of that version, and nothing is its
 * instance) and that every value is valid under `schema`; returns it typed. Throws
 * `DagError`: `invalid_dag` (any `validateDag` reason; `not_an_instance` at the first member that
 * differs from the template; `missing_value`; `unknown_parameter`) or `invalid_parameters` at
 * `/nodes/<id>/value` (a value the schema refuses, or `inconsistent_values` when two nodes of one
 * parameter disagree).
 *
 * @example
 * ```ts
 * const dag = await assertInstanceOf(body, version.template, version.templateHash, version.schema);
 * ```
 */
export async function assertInstanceOf(
  finished: unknown,
  template: Dag,
  templateHash: string,
  schema: ParameterSchema,
  limits: Partial<DagLimits> = {},
): Promise<Dag> {
  return (await checkInstance(finished, template, templateHash, schema, limits)).dag;
}

/**
 * `assertInstanceOf` that also returns the instance's DAG hash, equal to `dagHash(dag)` but
 * computed from the template's canonical skeleton (lib/dag/instance_canonical.ts), at a cost
 * proportional to the number of parameters rather than to the size of the DAG.
 *
 * @example
 * ```ts
 * const { dag, dagHash } = await checkInstance(body, v.template, v.templateHash, v.schema);
 * ```
 */
export async function checkInstance(
  finished: unknown,
  template: Dag,
  templateHash: string,
  schema: ParameterSchema,
  limits: Partial<DagLimits> = {},
): Promise<{ dag: Dag; dagHash: string }> {
  const shaped = templateShaped(finished, template, limits);
  const dag = shaped ?? validateDag(finished, limits);
  if (
    await shapeHashOf(template) !== templateHash ||
    (shaped === undefined && !sameShape(dag, template))
  ) {
    const pointer = firstDifference(templateShape(dag), templateShape(template));
    throw new DagError(
      "invalid_dag",
      "not_an_instance",
      pointer,
      pointer === ""
        ? "the DAG is not an instance of the project's template"
        : `the DAG departs from the project's template at ${pointer}`,
    );
  }
  const byName = new Map(schema.parameters.map((param) => [param.name, param]));
  const seen = new Map<string, ParameterValue>();
  for (const [id, node] of Object.entries(dag.nodes)) {
    if (!isParameterInput(node)) continue;
    const pointer = jsonPointer("nodes", id, "value");
    if (!Object.hasOwn(node, "value")) {
      throw new DagError("invalid_dag", "missing_value", pointer, `"${id}" has no value`);
    }
    const param = byName.get(node.parameter);
    if (param === undefined) {
      throw new DagError(
        "invalid_dag",
        "unknown_parameter",
        jsonPointer("nodes", id, "parameter"),
        `the schema has no parameter "${node.parameter}"`,
      );
    }
    const value = validateParameterValue(param, node.value, pointer);
    const earlier = seen.get(param.name);
    if (earlier !== undefined && earlier !== value) {
      throw new DagError(
        "invalid_parameters",
        "inconsistent_values",
        pointer,
        `"${id}" gives ${param.name} another value than an earlier node`,
      );
    }
    seen.set(param.name, value);
  }
  return { dag, dagHash: await sha256Hex(instanceCanonicalJson(template, dag)) };
}

/**
 * `finished` typed as a DAG when it has `template`'s exact shape and the template is valid under
 * the default limits, its values checked as `validateDag` checks them; undefined otherwise (then
 * `validateDag` checks it whole and reports its first problem). Such a DAG differs from a valid
 * template only in ParameterInput values, which no other rule of `validateDag` reads (result
 * types follow the fallback), so it passes `validateDag` exactly when its values do, and the
 * values are checked in the order `validateDag` would report them.
 */
function templateShaped(
  finished: unknown,
  template: Dag,
  limits: Partial<DagLimits>,
): Dag | undefined {
  if (Object.keys(limits).length > 0 || !validTemplate(template)) return undefined;
  if (!isRecord(finished) || !isRecord(finished.nodes)) return undefined;
  if (!sameShape(finished as unknown as Dag, template)) return undefined;
  const defaults = resolveDagLimits();
  for (const [id, node] of Object.entries(finished.nodes)) {
    if (isRecord(node) && node.op === "ParameterInput" && Object.hasOwn(node, "value")) {
      assertInputValue(node.value, node.fallback, jsonPointer("nodes", id, "value"), defaults);
    }
  }
  return finished as unknown as Dag;
}

const validTemplates = new WeakMap<Dag, boolean>();

/** Whether `template` passes `validateDag` under the default limits (remembered per object). */
function validTemplate(template: Dag): boolean {
  let valid = validTemplates.get(template);
  if (valid === undefined) {
    try {
      validateDag(template);
      valid = true;
    } catch {
      valid = false;
    }
    validTemplates.set(template, valid);
  }
  return valid;
}

/** Shape hashes of the templates seen (a loaded template object is reused across renders). */
const shapeHashes = new WeakMap<Dag, Promise<string>>();

function shapeHashOf(template: Dag): Promise<string> {
  let hash = shapeHashes.get(template);
  if (!hash) {
    hash = templateHash(template);
    shapeHashes.set(template, hash);
  }
  return hash;
}

/**
 * Whether `templateShape(dag)` and `templateShape(template)` are equal as JSON (so their hashes
 * are equal), without building either.
 */
function sameShape(dag: Dag, template: Dag): boolean {
  const keys = Object.keys(dag);
  if (keys.length !== Object.keys(template).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(template, key)) return false;
    if (key !== "nodes" && !jsonEqual(dag[key as keyof Dag], template[key as keyof Dag])) {
      return false;
    }
  }
  const nodes = dag.nodes as Record<string, unknown>;
  const expected = template.nodes as Record<string, unknown>;
  if (!isRecord(nodes) || !isRecord(expected)) return jsonEqual(nodes, expected);
  const ids = Object.keys(nodes);
  if (ids.length !== Object.keys(expected).length) return false;
  for (const id of ids) {
    if (!Object.hasOwn(expected, id)) return false;
    if (!sameNode(nodes[id], expected[id])) return false;
  }
  return true;
}

/** Two nodes equal as JSON, the `value` of a ParameterInput aside. */
function sameNode(a: unknown, b: unknown): boolean {
  if (!isRecord(a) || !isRecord(b)) return jsonEqual(a, b);
  const skipA = a.op === "ParameterInput";
  const skipB = b.op === "ParameterInput";
  let countA = 0;
  for (const key of Object.keys(a)) {
    if (skipA && key === "value") continue;
    countA++;
    if ((skipB && key === "value") || !Object.hasOwn(b, key)) return false;
    if (!jsonEqual(a[key], b[key])) return false;
  }
  let countB = 0;
  for (const key of Object.keys(b)) if (!(skipB && key === "value")) countB++;
  return countA === countB;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Equal as JSON values (parsed JSON: no undefined, NaN or cycles; 0 and -0 serialize alike). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(rb, key) || !jsonEqual(ra[key], rb[key])) return false;
  }
  return true;
}

/**
 * The pointer to the first place where `actual` departs from `expected` ("" when they are equal as
 * JSON): nodes in `actual`'s order, then nodes only the template has, then `output`. Members are
 * compared in `actual`'s order, then members only `expected` has; arrays element by element.
 */
function firstDifference(actual: Dag, expected: Dag): string {
  const found = diff(actual.nodes, expected.nodes, "/nodes");
  if (found !== undefined) return found;
  for (const key of ["dag", "output"] as const) {
    if (actual[key] !== expected[key]) return jsonPointer(key);
  }
  return "";
}

/** Recursion is bounded: `actual` passed validateDag, so it is at most a few levels deep. */
function diff(actual: unknown, expected: unknown, pointer: string): string | undefined {
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected)) return pointer;
    const n = Math.min(actual.length, expected.length);
    for (let i = 0; i < n; i++) {
      const found = diff(actual[i], expected[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
    return actual.length === expected.length ? undefined : `${pointer}/${n}`;
  }
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === "object" && x !== null;
  if (isObject(actual) || isObject(expected)) {
    if (!isObject(actual) || !isObject(expected)) return pointer;
    for (const key of Object.keys(actual)) {
      const at = pointer + jsonPointer(key);
      if (!Object.hasOwn(expected, key)) return at;
      const found = diff(actual[key], expected[key], at);
      if (found !== undefined) return found;
    }
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(actual, key)) return pointer + jsonPointer(key);
    }
    return undefined;
  }
  return actual === expected ? undefined : pointer;
}
