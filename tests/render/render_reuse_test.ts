/**
 * Reuse between renders through the render route (docs/dag.md): a template project's renders reach
 * the workers with their template shape, so a shopper's color picks on the spur gear take its body
 * from the worker's cache from the second pick on, counted by `kernel_reused_solids_total`; each
 * answer has the color asked for and the same mesh. lib-level rules: tests/kernel/solid_*_test.ts.
 */
import assert from "node:assert/strict";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { readExamples } from "@/lib/hub/demo_seed.ts";
import { startTestServer } from "../_helpers/server.ts";
import { render, setupRender } from "./render_helpers.ts";

Deno.test("render - a template project's color picks reuse the gear's body on the worker", async () => {
  const { template, schema } = (await readExamples()).find((e) => e.slug === "spur-gear")!;
  const parameters = validateParameterSchema(schema);
  const server = await startTestServer({ env: { RENDER_WORKERS: "1" } });
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 10 }, { template, schema });
    const reused = () => server.deps.metrics.reusedSolids.get();
    const meshes = new Set<string>();
    for (const color of ["#222222", "#f2f2f2", "#3a7d44", "#c9a227"]) {
      const dag = substitute(template as Dag, parameters, { color, teeth: 31 });
      const res = await render(server.url, s.token, s.origin, { dag });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.cache, "miss");
      assert.equal(body.scene.parts[0].color, color);
      meshes.add(body.scene.parts[0].mesh);
    }
    // The first pick keeps the body (the cache has room); the other three take it.
    assert.equal(reused(), 3);
    assert.equal(meshes.size, 1, "the same gear every time");
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^kernel_reused_solids_total 3$/m);
  } finally {
    await server.close();
  }
});
