/**
 * What the main thread loads: the worker pool and the DAG validator (the hub validates uploads on
 * its request thread) must not reach manifold-3d, whose JS glue and WASM belong in render workers.
 * Type-only imports (`import type`) load nothing and are allowed.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

interface InfoModule {
  specifier: string;
  dependencies?: { specifier: string; code?: { specifier: string } }[];
}

/** Every specifier `entry` imports at run time, directly or not (`deno info --json`). */
async function runtimeImports(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map<string, InfoModule>(
    info.modules.map((m: InfoModule) => [m.specifier, m]),
  );
  const seen = new Set<string>();
  const todo: string[] = [...info.roots];
  while (todo.length > 0) {
    const specifier = todo.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.code) todo.push(dep.code.specifier);
    }
  }
  return [...seen];
}

Deno.test("kernel - the worker pool and the validator do not load manifold-3d", async (t) => {
  for (const entry of ["lib/kernel/worker_pool.ts", "lib/kernel/dag_validate.ts"]) {
    await t.step(entry, async () => {
      const reached = await runtimeImports(entry);
      assert.ok(reached.some((s) => s.endsWith(entry)), reached.join("\n"));
      const heavy = reached.filter((s) => /manifold|\/evaluate\.ts$/.test(s));
      assert.deepEqual(heavy, [], `${entry} loads ${heavy.join(", ")}`);
    });
  }
});
