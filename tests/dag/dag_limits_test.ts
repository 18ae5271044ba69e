import assert from "node:assert/strict";
import {
  DEFAULT_DAG_LIMITS,
  expandedCost,
  expandedCostsInOrder,
  resolveDagLimits,
} from "../../lib/dag/dag_limits.ts";
import type { Dag } from "../../lib/dag/dag_types.ts";
import { validateDag } from "../../lib/kernel/dag_validate.ts";

const r = (id: string) => ({ ref: id });

function dagOf(nodes: Record<string, unknown>): Dag {
  return { dag: 1, nodes, output: "out" } as unknown as Dag;
}

/** n levels of a node that references the level below twice: 2^(n+1) − 1 expanded nodes. */
function diamond(levels: number): Dag {
  const nodes: Record<string, unknown> = {
    d0: { op: "ParameterInput", parameter: "x", fallback: 1 },
  };
  for (let i = 1; i <= levels; i++) {
    nodes[`d${i}`] = { op: "add", args: [r(`d${i - 1}`), r(`d${i - 1}`)] };
  }
  nodes.box = { op: "box", size: [r(`d${levels}`), 1, 1] };
  nodes.part = { op: "part", name: "P", color: "#000000", child: r("box") };
  nodes.out = { op: "assembly", parts: [r("part")] };
  return dagOf(nodes);
}

Deno.test("kernel - DEFAULT_DAG_LIMITS are the limits of docs/dag.md", () => {
  assert.deepEqual(
    {
      nodes: DEFAULT_DAG_LIMITS.maxNodes,
      cost: DEFAULT_DAG_LIMITS.maxExpandedCost,
      segments: [DEFAULT_DAG_LIMITS.minSegments, DEFAULT_DAG_LIMITS.maxSegments],
      points: DEFAULT_DAG_LIMITS.maxPolygonPoints,
      repeat: DEFAULT_DAG_LIMITS.maxRepeatCount,
      grid: DEFAULT_DAG_LIMITS.maxGridCount,
      instances: DEFAULT_DAG_LIMITS.maxInstancesPerPart,
      abs: DEFAULT_DAG_LIMITS.maxAbsNumber,
      triangles: DEFAULT_DAG_LIMITS.maxTriangles,
      deadline: DEFAULT_DAG_LIMITS.deadlineMs,
      body: DEFAULT_DAG_LIMITS.maxBodyBytes,
      string: DEFAULT_DAG_LIMITS.maxStringLength,
      text: [DEFAULT_DAG_LIMITS.maxTextCharacters, DEFAULT_DAG_LIMITS.maxTextVertices],
    },
    {
      nodes: 2000,
      cost: 200_000,
      segments: [3, 256],
      points: 1000,
      repeat: 1000,
      grid: 10_000,
      instances: 10_000,
      abs: 1e6,
      triangles: 1_000_000,
      deadline: 10_000,
      body: 262_144,
      string: 200,
      text: [64, 20_000],
    },
  );
  assert.ok(Object.isFrozen(DEFAULT_DAG_LIMITS));
});

Deno.test("kernel - resolveDagLimits overrides only what it is given", () => {
  const limits = resolveDagLimits({ maxNodes: 10, deadlineMs: undefined });
  assert.equal(limits.maxNodes, 10);
  assert.equal(limits.deadlineMs, 10_000);
  assert.equal(DEFAULT_DAG_LIMITS.maxNodes, 2000);
});

Deno.test("kernel - expandedCost counts each reference as often as it is reached", () => {
  // A chain: every node once.
  assert.equal(expandedCost(diamond(0)), 4);
  // d_n costs 2^(n+1) − 1, plus box, part and assembly.
  assert.equal(expandedCost(diamond(3)), 15 + 3);
  assert.equal(expandedCost(diamond(10)), 2047 + 3);
  // Unreferenced roots are added to the output's cost.
  const dag = diamond(2);
  (dag.nodes as Record<string, unknown>).spare = { op: "box", size: [1, 1, 1] };
  assert.equal(expandedCost(dag), 7 + 3 + 1);
});

Deno.test("kernel - expandedCost saturates instead of overflowing", () => {
  const huge = diamond(1500); // 2^1501 nodes: far beyond any float
  assert.equal(expandedCost(huge), DEFAULT_DAG_LIMITS.maxExpandedCost + 1);
  assert.equal(expandedCost(huge, 1000), 1001);
  assert.throws(() => validateDag(huge), { reason: "expanded_cost", pointer: "/nodes/d17" });
  const costs = expandedCostsInOrder([0, 1, 2], [[], [0, 0], [1, 1, 1]], 5);
  assert.deepEqual([...costs], [1, 3, 6]);
});

Deno.test("kernel - a DAG just under the expanded cost is accepted", () => {
  const dag = diamond(16); // 131071 + 3
  assert.equal(expandedCost(dag), 131_074);
  assert.equal(validateDag(dag), dag);
  assert.throws(() => validateDag(dag, { maxExpandedCost: 131_073 }), {
    reason: "expanded_cost",
    pointer: "/nodes/out",
  });
  // Each root under the limit, their sum over it: the whole node map is blamed.
  const twoRoots = diamond(10); // 2050
  (twoRoots.nodes as Record<string, unknown>).spare = { op: "add", args: [r("d10")] }; // 2048
  assert.equal(validateDag(twoRoots, { maxExpandedCost: 4098 }), twoRoots);
  assert.throws(() => validateDag(twoRoots, { maxExpandedCost: 4097 }), {
    reason: "expanded_cost",
    pointer: "/nodes",
  });
});

Deno.test("kernel - expandedCost of a cyclic graph counts as too big", () => {
  const dag = dagOf({ a: { op: "add", args: [r("b")] }, b: { op: "add", args: [r("a")] } });
  assert.equal(expandedCost(dag, 10), 11);
});
