/**
 * A kernel node's renders reach the hub's usage page (issue 17), with real processes: a hub
 * (`ROLE=hub`, a KV file) and a kernel (`ROLE=kernel`, no KV). Renders through the kernel are
 * counted in Redis by the kernel (lib/render/usage_relay.ts) and moved into KV by the hub
 * (lib/hub/usage_drain.ts); the test reads the hub's KV file with the usage page's own function
 * and compares it, per cache level, with the kernel's `/metrics`. How long the counts took to
 * appear is printed (no timing assertion; the hang guard is 30 s).
 */
import assert from "node:assert/strict";
import { usageSummary } from "@/lib/hub/usage.ts";
import { openKv } from "@/lib/store/kv.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { type ServerProcess, startServerProcess } from "../_helpers/process.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { deleteRedisPrefix, rid, TEST_REDIS_URL } from "../_helpers/redis.ts";
import { mintToken, render } from "./render_helpers.ts";

const HANG_GUARD_MS = 30_000;
const RENDERS = 12;

/** Successful renders by cache level, from a node's `/metrics`. */
async function rendersByLevel(node: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const levels: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("kernel_renders_total{") || !line.includes('outcome="ok"')) continue;
    const level = /cache="([^"]+)"/.exec(line)?.[1];
    if (level) levels[level] = Number(line.split(" ").at(-1));
  }
  return levels;
}

Deno.test("kernel node - renders through a kernel are counted on the hub's usage page", async () => {
  const dir = await Deno.makeTempDir();
  const prefix = `kusage:${rid(6)}:`;
  const hubKv = `${dir}/hub.kv`;
  const kv = await openKv(hubKv);
  let hub: ServerProcess | undefined;
  let kernel: ServerProcess | undefined;
  try {
    hub = await startServerProcess({
      ROLE: "hub",
      KV_PATH: hubKv,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SEED_DEMO: "false",
    });
    kernel = await startServerProcess({
      ROLE: "kernel",
      HUB_URL: hub.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      RENDER_WORKERS: "1",
    });
    const f = await createKeyFixture(kv, { budget: 1000 });
    await publishFixture(kv, f.partnerId, f.project);
    const token = await mintToken(hub.url, f);
    const body = { dag: await finishedDag("plate") };
    for (let i = 0; i < RENDERS; i++) {
      const res = await render(kernel.url, token, f.origin, body);
      assert.equal(res.status, 200, await res.text());
    }
    const expected = await rendersByLevel(kernel);
    assert.equal(Object.values(expected).reduce((a, b) => a + b, 0), RENDERS);
    assert.ok(expected.miss >= 1, JSON.stringify(expected));

    const since = performance.now();
    let summary = await usageSummary(kv, f.keyId);
    while (summary.renders < RENDERS && performance.now() - since < HANG_GUARD_MS) {
      await new Promise((r) => setTimeout(r, 100));
      summary = await usageSummary(kv, f.keyId);
    }
    console.log(
      `kernel renders on the hub's usage page after ${Math.round(performance.now() - since)} ms`,
    );
    assert.equal(summary.renders, RENDERS);
    const counted: Record<string, number> = {};
    for (const r of summary.rows) {
      if (r.kind === "render" && r.outcome === "ok") counted[r.detail] = r.count;
    }
    assert.deepEqual(counted, expected);
    assert.ok(summary.lastUsedAt !== null);
    // Nothing more arrives later (each batch was applied once).
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal((await usageSummary(kv, f.keyId)).renders, RENDERS);
  } finally {
    await kernel?.stop();
    await hub?.stop();
    kv.close();
    await deleteRedisPrefix(TEST_REDIS_URL, prefix);
    await Deno.remove(dir, { recursive: true });
  }
});
