/**
 * The layering of ARCHITECTURE.md, checked on the real import graph (`deno info --json`, type-only
 * imports included): no import cycle between folders or files, lib/ folders import only lower
 * layers, the framework (lib/web) imports nothing of the product, and browser entry points reach
 * only browser-safe modules (lib/dag, lib/client, islands, the island runtime).
 */
import assert from "node:assert/strict";
import { cycles, importGraph, layerGraph, layerOf, reachable } from "./import_graph.ts";

const root = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const graph = await importGraph(root);
const layers = layerGraph(graph);

/**
 * Each lib/ folder's rank: a module may import only folders of a lower rank (and its own).
 * Changing this table is a design decision: say why in the commit.
 */
const RANK: Record<string, number> = {
  // Leaves: formats, protocols, primitives.
  "lib/dag": 0, // browser-safe DAG format, parameter schema, scene and render-response types
  "lib/http": 0, // RFC 9457 problems, origins, CORS, client IPs
  "lib/token": 0, // sv1 tokens, Ed25519, JWKS
  "lib/ops": 0, // logger, metrics
  "lib/cache": 0, // generic single-flight
  // Adapters and engines over the leaves.
  "lib/config.ts": 1,
  "lib/client": 1, // browser SDK core
  "lib/redis": 1, // the Redis connection, deadlines, scripts
  "lib/store": 1, // every Deno KV record
  "lib/kernel": 1, // evaluation: ops, validator, worker pool, manifold
  "lib/web": 1, // the routes/islands framework (imports lib/http only; checked below)
  // The product's services.
  "lib/auth": 2,
  "lib/render": 2,
  "lib/hub": 3,
  "lib/sdk": 4, // what the hub serves partners (bundles, embed element)
  "lib/app": 5, // the composition root
};

const BROWSER_ENTRIES = [
  ...[...graph.keys()].filter((f) => /^islands\/[^/]+\.tsx$/.test(f)),
  "lib/web/islands_client.ts",
  "lib/sdk/embed_element.ts",
  "lib/sdk/embed_shell.ts",
  "lib/sdk/preact_entry.ts",
  // The npm package's entries (packages/sdk): browser code, built from the same modules.
  "packages/sdk/src/index.ts",
  "packages/sdk/src/preact.ts",
  "packages/sdk/src/element.ts",
  "packages/sdk/src/react/mod.ts",
];
const BROWSER_SAFE = (f: string) =>
  /^(lib\/dag|lib\/client|islands|packages\/sdk\/src)\//.test(f) ||
  [
    "lib/web/islands.ts",
    "lib/web/islands_client.ts",
    "lib/web/effect_scheduling.ts",
    // The element's modules (what embed.js and the element's bundle run).
    "lib/sdk/configurator_element.ts",
    "lib/sdk/mount_configurator.ts",
    "lib/sdk/embed_attributes.ts",
    "lib/sdk/early_requests.ts",
  ].includes(f) ||
  BROWSER_ENTRIES.includes(f);

Deno.test("architecture - the graph covers every lib folder and the entry points", () => {
  for (const folder of Object.keys(RANK)) {
    assert.ok([...graph.keys()].some((f) => layerOf(f) === folder), `${folder} is in the graph`);
  }
  for (
    const f of ["main.ts", "manifest.gen.ts", "lib/kernel/kernel_worker.ts", ...BROWSER_ENTRIES]
  ) {
    assert.ok(graph.has(f), f);
  }
  const unranked = [...layers.edges.keys()].filter((l) => l.startsWith("lib/") && !(l in RANK));
  assert.deepEqual(unranked, [], "every lib/ folder has a rank in this test");
});

Deno.test("architecture - no import cycle between folders", () => {
  const found = cycles(layers.edges).map((c) =>
    c.map((a) => c.filter((b) => layers.edges.get(a)?.has(b)).map((b) => layers.example(a, b)))
      .flat()
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture - no import cycle between files", () => {
  assert.deepEqual(cycles(graph), []);
});

Deno.test("architecture - lib folders import only lower layers", () => {
  const upward: string[] = [];
  for (const [from, tos] of layers.edges) {
    if (!(from in RANK)) continue;
    for (const to of tos) {
      if (!(to in RANK) || RANK[to] >= RANK[from]) upward.push(layers.example(from, to));
    }
  }
  // lib/sdk bundles the islands (what partners load); nothing else in lib/ reaches outside it.
  const allowed = (edge: string) => edge.startsWith("lib/sdk/") && edge.includes("→ islands/");
  assert.deepEqual(upward.filter((e) => !allowed(e)), []);
});

Deno.test("architecture - lib/web imports nothing of the product", () => {
  const outside = [...(layers.edges.get("lib/web") ?? [])].filter((l) => l !== "lib/http");
  assert.deepEqual(outside.map((l) => layers.example("lib/web", l)), []);
});

Deno.test("architecture - browser entry points reach only browser-safe modules", () => {
  for (const entry of BROWSER_ENTRIES) {
    const reached = [...reachable(graph, entry)].filter((f) => !BROWSER_SAFE(f));
    assert.deepEqual(reached, [], `${entry} reaches server-only modules`);
  }
});

Deno.test("architecture - the kernel's main-thread modules do not load manifold", () => {
  // manifold's JS glue belongs in the workers (kernel_worker.ts); the pool only schedules.
  const reached = [...reachable(graph, "lib/kernel/worker_pool.ts")];
  assert.ok(!reached.includes("lib/kernel/manifold_runtime.ts"), reached.join(" "));
  assert.ok(!reached.includes("lib/kernel/evaluate.ts"), reached.join(" "));
});
