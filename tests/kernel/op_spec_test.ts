/**
 * The op specs as the one definition of each op: the range check both sides use, and — for every
 * op and every ranged member, generated from the specs — a literal out of range refused by
 * validateDag and the JSON Schema, and the same value computed refused by evaluation, each with
 * the reason and pointer the member's rule implies.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { DEFAULT_DAG_LIMITS } from "@/lib/dag/dag_limits.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { createManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import { OPS } from "@/lib/kernel/ops/mod.ts";
import {
  ASM,
  BOOL,
  type Member,
  NUM,
  PART,
  PROFILE,
  type Range,
  rangeViolation,
  resolveBound,
  SOLID,
  STR,
} from "@/lib/kernel/ops/op_spec.ts";

type Json = Record<string, unknown>;
const ref = (id: string) => ({ ref: id });
const runtime = await createManifoldRuntime();
const schema = JSON.parse(
  await Deno.readTextFile(new URL("../../lib/dag/dag.schema.json", import.meta.url)),
);
const schemaAccepts = new Ajv2020({ strict: true }).compile(schema);

Deno.test("ops - rangeViolation names the first broken rule", () => {
  const rows: [number, Range, string | undefined][] = [
    [1, { gt: 0 }, undefined],
    [0, { gt: 0 }, "lower"],
    [2, { int: true, ge: "minSegments", le: "maxSegments" }, "lower"],
    [257, { int: true, ge: "minSegments", le: "maxSegments" }, "upper"],
    [3.5, { int: true, ge: "minSegments", le: "maxSegments" }, "int"],
    [0, { nonZero: true }, "zero"],
    [-0, { nonZero: true }, "zero"],
    [360, { gt: 0, le: 360 }, undefined],
    [10_001, { int: true, ge: 1, le: "maxGridCount" }, "upper"],
  ];
  for (const [value, range, expected] of rows) {
    assert.equal(rangeViolation(value, range, DEFAULT_DAG_LIMITS), expected, `${value}`);
  }
  assert.equal(
    rangeViolation(200, { le: "maxSegments" }, { ...DEFAULT_DAG_LIMITS, maxSegments: 128 }),
    "upper",
  );
});

/** A number that meets `range` (limits at their defaults). */
function inRange(range: Range | undefined): number {
  const ge = range?.ge === undefined ? undefined : resolveBound(range.ge, DEFAULT_DAG_LIMITS);
  if (ge !== undefined) return ge === 0 && range?.nonZero ? 1 : ge;
  return range?.gt !== undefined ? range.gt + 1 : 1;
}

/** A valid literal (or reference to a helper node) for a member. */
function validArg(member: Member): unknown {
  switch (member.kind) {
    case "num":
      return inRange(member.range);
    case "vec":
      return Array.from({ length: member.n }, () => inRange(member.range));
    case "bool":
      return false;
    case "str":
      return member.color ? "#000000" : "x";
    case "choice":
      return member.choices[0];
    case "nums":
      return [1];
    case "points":
      return [[0, 0], [1, 0], [0, 1]];
    case "ref":
      return ref(helperFor(member.type));
    case "refs":
      return [ref(helperFor(member.type))];
    case "value":
    case "literal":
      return 1;
    case "name":
      return "v";
  }
}

const HELPERS: Json = {
  hProfile: { op: "circle", radius: 1, segments: 8 },
  hSolid: { op: "box", size: [1, 1, 1] },
  hPart: { op: "part", name: "helper", color: "#000000", child: ref("hSolid") },
};

function helperFor(type: number): string {
  return type & PROFILE ? "hProfile" : type & PART ? "hPart" : "hSolid";
}

/** A minimal valid node of `op`, every member present. */
function nodeOf(op: string): Json {
  const node: Json = { op };
  for (const [key, member] of Object.entries(OPS[op].members)) node[key] = validArg(member);
  return node;
}

/** A DAG whose output needs node `x`'s value. */
function dagAround(x: Json): Dag {
  const result = OPS[x.op as string].result;
  const type = typeof result === "number" ? result : result === "child" ? SOLID : NUM;
  const nodes: Json = { ...HELPERS, x };
  const part = (child: string, name: unknown = "p") => ({
    op: "part",
    name,
    color: "#000000",
    child: ref(child),
  });
  const moved = (by: string) => ({
    op: "translate",
    child: ref("hSolid"),
    offset: [ref(by), 0, 0],
  });
  if (type === NUM) nodes.use = moved("x");
  if (type === BOOL) {
    nodes.n = { op: "select", cond: ref("x"), then: 1, else: 2 };
    nodes.use = moved("n");
  }
  if (type === PROFILE) nodes.use = { op: "extrude", profile: ref("x"), height: 1 };
  if (type === STR) nodes.p = part("hSolid", ref("x"));
  else if (type !== PART && type !== ASM) nodes.p = part(nodes.use ? "use" : "x");
  if (type !== ASM) nodes.out = { op: "assembly", parts: [ref(type === PART ? "x" : "p")] };
  return { dag: 1, nodes: nodes as Dag["nodes"], output: type === ASM ? "x" : "out" };
}

Deno.test("ops - a minimal node of every op validates, passes the schema and evaluates", async () => {
  for (const op of Object.keys(OPS)) {
    const dag = dagAround(nodeOf(op));
    assert.equal(validateDag(dag), dag, op);
    assert.ok(schemaAccepts(dag), `${op}: ${JSON.stringify(schemaAccepts.errors)}`);
    // A difference of the helper box from itself is empty: evaluated, but no part to draw.
    await evaluateDag(dag, runtime).catch((err) => assert.equal(err.reason, "empty_geometry", op));
  }
});

/** Values that break `range`, with the rule each breaks. */
function breaking(range: Range): [number, "int" | "zero" | "bound"][] {
  const out: [number, "int" | "zero" | "bound"][] = [];
  const ge = range.ge === undefined ? undefined : resolveBound(range.ge, DEFAULT_DAG_LIMITS);
  const le = range.le === undefined ? undefined : resolveBound(range.le, DEFAULT_DAG_LIMITS);
  if (range.gt !== undefined) out.push([range.gt, "bound"]);
  if (ge !== undefined) out.push([ge - 1, "bound"]);
  if (le !== undefined) out.push([le + 1, "bound"]);
  if (range.int) out.push([(ge ?? 0) + 1.5, "int"]);
  if (range.nonZero) out.push([0, "zero"]);
  return out;
}

Deno.test("ops - a member's range is one rule: literal refused by validation, computed by evaluation", async (t) => {
  for (const [op, spec] of Object.entries(OPS)) {
    for (const [key, member] of Object.entries(spec.members)) {
      const range = member.kind === "num" || member.kind === "vec" ? member.range : undefined;
      if (range === undefined) continue;
      for (const [value, rule] of breaking(range)) {
        await t.step(`${op}.${key} = ${value}`, async () => {
          const reason = rule === "int"
            ? "not_an_integer"
            : rule === "zero" && range.reason
            ? range.reason
            : "out_of_range";
          const set = (node: Json, v: unknown) => {
            if (member.kind === "vec") (node[key] as unknown[])[0] = v;
            else node[key] = v;
          };
          const literal = nodeOf(op);
          set(literal, value);
          const dag = dagAround(literal);
          const at = member.kind === "vec" ? `/nodes/x/${key}/0` : `/nodes/x/${key}`;
          assert.throws(() => validateDag(dag), { reason, pointer: at });
          assert.equal(schemaAccepts(dag), false, "the JSON Schema accepted it");
          const computed = nodeOf(op);
          set(computed, ref("v"));
          const withInput = dagAround(computed);
          withInput.nodes.v = { op: "ParameterInput", parameter: "v", fallback: 1, value };
          validateDag(withInput);
          const evalAt = member.kind === "vec" && !range.int ? `/nodes/x/${key}` : at;
          await assert.rejects(evaluateDag(withInput, runtime), { reason, pointer: evalAt });
        });
      }
    }
  }
});
