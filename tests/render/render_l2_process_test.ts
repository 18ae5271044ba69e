/**
 * Two render processes share the L2 cache through Redis: a scene evaluated by one is served by
 * the other (`cache: "l2"`) without evaluating again. The second is a real `main.ts` subprocess
 * with `ROLE=kernel`: it verifies with the first's JWKS over HTTP and reads projects from the same
 * Deno KV file.
 */
import assert from "node:assert/strict";
import { openKv } from "@/lib/store/kv.ts";
import { startServerProcess } from "../_helpers/process.ts";
import { startTestServer, TEST_REDIS_URL } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { render, setupRender } from "./render_helpers.ts";

Deno.test("render - a second server process sharing the Redis prefix serves an L2 hit", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/shared.kv`;
  const kv = await openKv(kvPath);
  const first = await startTestServer({ kv });
  let second: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const s = await setupRender(kv, first.url, { budget: 10 });
    const dag = await finishedDag("plate", { width: 140, holes: 5 });
    const miss = await render(first.url, s.token, s.origin, { dag });
    assert.equal(miss.status, 200, await miss.clone().text());
    const fromFirst = await miss.json();
    assert.equal(fromFirst.cache, "miss");

    second = await startServerProcess({
      ROLE: "kernel",
      HUB_URL: first.url,
      KV_PATH: kvPath,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: first.config.redisPrefix,
      SEED_DEMO: "false",
      LOG_LEVEL: "info",
    });
    const hit = await render(second.url, s.token, s.origin, { dag });
    assert.equal(hit.status, 200, `${await hit.clone().text()}\n${second.output()}`);
    const fromSecond = await hit.json();
    assert.equal(fromSecond.cache, "l2");
    assert.equal(fromSecond.dagHash, fromFirst.dagHash);
    assert.deepEqual(fromSecond.scene, fromFirst.scene);
    assert.deepEqual(fromSecond.meshes, fromFirst.meshes);
    // Both processes spend from the same per-token budget in Redis.
    assert.equal(fromSecond.budget.remaining, 8);
    // The second process now holds it in L1.
    const again = await (await render(second.url, s.token, s.origin, { dag })).json();
    assert.equal(again.cache, "l1");
    // It rendered without ever evaluating: its metrics count no miss.
    const metrics = await (await fetch(`${second.url}/metrics`)).text();
    assert.match(metrics, /kernel_renders_total\{[^}]*cache="l2"[^}]*\} 1/);
    assert.doesNotMatch(metrics, /kernel_renders_total\{[^}]*cache="miss"/);
  } finally {
    await second?.stop();
    await first.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
