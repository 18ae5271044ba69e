/**
 * cadparam (the Python emitter) against the kernel's op specs: its op table (`cadparam/ops.py`,
 * declared next to each emitting function; the emitter checks every node against it) says exactly
 * what `lib/kernel/ops/` says — the
 * same ops, members, kinds, required members, ranges and referenced types — and what it really
 * emits for a design that uses every op stays inside that table and validates.
 */
import assert from "node:assert/strict";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { OPS } from "@/lib/kernel/ops/mod.ts";
import { describeType, isRequired, type Member, type Result } from "@/lib/kernel/ops/op_spec.ts";
import { python } from "./_python.ts";

type Json = Record<string, unknown>;

/** Runs a Python snippet with cadparam importable; its stdout as JSON. */
async function pythonJson(code: string): Promise<Json> {
  const run = await python(["-c", code]);
  assert.equal(run.code, 0, `python3 failed:\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** A spec member in the vocabulary of cadparam's table. */
function rules(member: Member): Json {
  const out: Json = { kind: member.kind, required: isRequired(member) };
  if ((member.kind === "num" || member.kind === "vec") && member.range) {
    out.range = Object.fromEntries(
      Object.entries(member.range).filter(([, v]) => v !== undefined),
    );
  }
  if (member.kind === "vec") out.n = member.n;
  if (member.kind === "choice") out.choices = [...member.choices];
  if (member.kind === "nums" || member.kind === "refs") {
    [out.min, out.max] = [member.min, member.max];
  }
  if (member.kind === "ref" || member.kind === "refs") {
    out.accepts = describeType(member.type).split(" or ");
  }
  if (member.kind === "str" && member.color) out.color = true;
  return out;
}

function result(result: Result): string {
  return typeof result === "number" ? describeType(result) : result;
}

Deno.test("design - cadparam's op table has the kernel specs' ops, members and rules", async () => {
  const table = await pythonJson(
    "import json; from cadparam.ops import OPS; print(json.dumps(OPS))",
  ) as Record<string, { result: string; members: Record<string, Json> }>;
  assert.deepEqual(Object.keys(table).sort(), Object.keys(OPS).sort(), "the same ops");
  for (const [name, spec] of Object.entries(OPS)) {
    const members = Object.fromEntries(
      Object.entries(spec.members).map(([key, member]) => [key, rules(member)]),
    );
    assert.deepEqual(
      { result: table[name].result, members: table[name].members },
      { result: result(spec.result), members },
      `cadparam/ops.py's ${name} differs from lib/kernel/ops`,
    );
    assert.deepEqual(Object.keys(table[name].members), Object.keys(members), `${name} order`);
  }
});

/** A template-mode design that calls every geometry function and expression helper. */
const EVERY_OP_DESIGN = `
import json
import cadparam as cp

@cp.project(slug="all", title="All", parameters=[cp.Float("w", 4, min=1, max=9),
                                                 cp.Int("n", 3, min=1, max=9)])
def design(p):
    k = cp.clamp(p.w, 2, 5) + cp.round_to(p.w, 0.5) - cp.min(p.w, 3) * cp.max(p.w, 1) / 2
    size = cp.select(p.w > 3, k, 4)
    prof = cp.union(
        cp.rectangle([size, 2], center=True).extrude(3, twist=10, scale_top=[1, 1],
                                                    divisions=2, center=False),
        cp.rounded_rectangle([p.w, 5], 1, segments=16).extrude(1),
        cp.circle(2, segments=12).revolve(segments=12, degrees=180).translate(0, 0, 9),
        cp.polygon([[0, 0], [4, 0], [0, 4]]).extrude(1),
        cp.circle(3).offset(p.w / 4, join="miter", miter_limit=3, segments=16).extrude(2),
        cp.fillet2d(cp.rectangle([8, p.w]), p.w / 4, segments=24).extrude(1),
        cp.text("Ab", p.w, halign="center", valign="top", spacing=0.5, tolerance=0.02,
                kerning=p.w > 2).extrude(1),
    )
    solid = cp.hull(cp.box([1, 1, 1], center=True), cp.sphere(1),
                    cp.cylinder(2, 1, radius_top=0, segments=8, center=True))
    cut = cp.intersection(solid.rotate(0, 0, 45), solid.scale(2).mirror(1, 0, 0))
    body = cp.difference(prof, cut)
    reps = cp.union(cp.linear_repeat(solid, p.n, [3, 0, 0]),
                    cp.grid_repeat(solid, [p.n, 2], [3, 3]),
                    cp.polar_repeat(solid.translate(10, 0, 0), p.n, degrees=360))
    return [cp.part("A", body, "#112233"), cp.part("B", reps, "#445566")]

print(json.dumps(design.template()))
`;

Deno.test("design - what cadparam emits for every op is inside the specs and validates", async () => {
  const dag = await pythonJson(EVERY_OP_DESIGN) as { nodes: Record<string, Json> };
  const emitted = new Set<string>();
  for (const [id, node] of Object.entries(dag.nodes)) {
    const spec = OPS[node.op as string];
    assert.ok(spec, `${id}: cadparam emits an op the kernel does not define: ${node.op}`);
    emitted.add(node.op as string);
    for (const key of Object.keys(node)) {
      if (key !== "op") assert.ok(Object.hasOwn(spec.members, key), `${id}: ${node.op}.${key}`);
    }
  }
  const expected = Object.keys(OPS);
  assert.deepEqual([...emitted].sort(), [...expected].sort(), "the design uses every op");
  validateDag(dag);
});

Deno.test("design - cadparam refuses a literal out of its member's range, naming the line", async () => {
  const cases: [string, RegExp][] = [
    ["cp.circle(0)", /circle radius must be > 0, got 0/],
    ["cp.sphere(1, segments=2)", /sphere segments must be an integer ≥ 3 and ≤ 256, got 2/],
    ["cp.box([1, 0, 1])", /box size\[1\] must be > 0, got 0/],
    ["cp.linear_repeat(cp.box([1, 1, 1]), 1001, [1, 0, 0])", /count must be an integer/],
    ["cp.box([1, 1, 1]).scale(1, 0, 1)", /scale factor\[1\] must be non-zero/],
  ];
  for (const [call, message] of cases) {
    const run = await python([
      "-c",
      `import cadparam as cp\nfrom cadparam.graph import Graph\nwith Graph():\n    ${call}`,
    ]);
    assert.notEqual(run.code, 0, call);
    assert.match(run.stderr, /DesignError/, call);
    assert.match(run.stderr, message, call);
  }
});
