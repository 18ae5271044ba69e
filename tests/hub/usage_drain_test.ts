/**
 * The kernel usage relay and its drain (lib/render/usage_relay.ts, lib/hub/usage_drain.ts) on the
 * real Redis, one server and a local three-master cluster: counts reach KV once, whether a hub stops between claim and apply, between apply and
 * release, or two hubs drain the same batch at once; and a relay whose Redis is gone drops its
 * counts (counted) instead of failing the render.
 */
import assert from "node:assert/strict";
import { usageSummary } from "@/lib/hub/usage.ts";
import { UsageDrain } from "@/lib/hub/usage_drain.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { Counter } from "@/lib/ops/metrics.ts";
import { connectRedis } from "@/lib/redis/client.ts";
import { claimedKey, RELAY_SHARDS, relayKey, UsageRelay } from "@/lib/render/usage_relay.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { TEST_REDIS_URL } from "../_helpers/redis.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";

const quiet = new Logger("error", () => {});

/** Records `n` renders: a third each l1, l2 and miss, plus one refused. */
async function recordRenders(relay: UsageRelay, keyId: string, n: number) {
  for (let i = 0; i < n; i++) relay.recordRender(keyId, "ok", ["l1", "l2", "miss"][i % 3]);
  relay.recordRender(keyId, "budget_exhausted", "none");
  await relay.flush();
}

/** Claims every shard that has counts; returns the shards claimed. */
async function claimAll(drain: UsageDrain): Promise<number[]> {
  const claimed: number[] = [];
  for (let s = 0; s < RELAY_SHARDS; s++) if (await drain.claim(s)) claimed.push(s);
  return claimed;
}

for (const target of REDIS_TARGETS) {
  Deno.test(`usage relay - a hub stopped between claim and apply: the next drain applies once (${target.name})`, () =>
    target.run(async (redis, prefix) => {
      const kv = await Deno.openKv(":memory:");
      try {
        const f = await createKeyFixture(kv);
        const relay = new UsageRelay(redis, { prefix, log: quiet });
        await recordRenders(relay, f.keyId, 9);
        // The first hub claims and stops before applying.
        const claimed = await claimAll(new UsageDrain(kv, redis, { prefix, log: quiet }));
        assert.equal(claimed.length, 1);
        assert.equal((await usageSummary(kv, f.keyId)).renders, 0);
        // Renders after the claim go to a fresh hash.
        await recordRenders(relay, f.keyId, 3);
        // A restarted hub finishes the claimed batch and drains the rest (in the same shard, after
        // a second claim; in another, in the same pass).
        const next = new UsageDrain(kv, redis, { prefix, log: quiet });
        assert.equal(await next.drainOnce() + await next.drainOnce(), 14);
        assert.equal(await next.drainOnce(), 0);
        const s = await usageSummary(kv, f.keyId);
        assert.equal(s.renders, 12);
        assert.equal(s.rendersDenied, 2);
        assert.equal(s.budgetExhausted, 2);
        const byLevel = (d: string) =>
          s.rows.filter((r) => r.kind === "render" && r.outcome === "ok" && r.detail === d)
            .reduce((n, r) => n + r.count, 0);
        assert.deepEqual([byLevel("l1"), byLevel("l2"), byLevel("miss")], [4, 4, 4]);
        assert.ok(s.lastUsedAt !== null && s.lastUsedAt <= Date.now());
        for (let sh = 0; sh < RELAY_SHARDS; sh++) {
          assert.equal(await redis.exists(claimedKey(prefix, sh)), 0);
          assert.equal(await redis.exists(relayKey(prefix, sh)), 0);
        }
      } finally {
        kv.close();
      }
    }));

  Deno.test(`usage relay - a hub stopped between apply and release: the batch is not counted twice (${target.name})`, () =>
    target.run(async (redis, prefix) => {
      const kv = await Deno.openKv(":memory:");
      try {
        const f = await createKeyFixture(kv);
        const relay = new UsageRelay(redis, { prefix, log: quiet });
        await recordRenders(relay, f.keyId, 6);
        const first = new UsageDrain(kv, redis, { prefix, log: quiet });
        const [shard] = await claimAll(first);
        const batch = await first.read(shard);
        assert.ok(batch);
        assert.equal(await first.apply(batch), 7);
        // Stopped before release: the claimed hash is still there.
        assert.equal(await redis.exists(claimedKey(prefix, shard)), 1);
        // Two hubs now finish it at once; each chunk is applied once in all.
        const [a, b] = await Promise.all([
          new UsageDrain(kv, redis, { prefix, log: quiet }).drainOnce(),
          new UsageDrain(kv, redis, { prefix, log: quiet }).drainOnce(),
        ]);
        assert.equal(a + b, 0);
        assert.equal(await redis.exists(claimedKey(prefix, shard)), 0);
        const s = await usageSummary(kv, f.keyId);
        assert.equal(s.renders, 6);
        assert.equal(s.rendersDenied, 1);
      } finally {
        kv.close();
      }
    }));

  Deno.test(`usage relay - two hubs draining a fresh batch concurrently apply it once (${target.name})`, () =>
    target.run(async (redis, prefix) => {
      const kv = await Deno.openKv(":memory:");
      try {
        const f = await createKeyFixture(kv);
        const relay = new UsageRelay(redis, { prefix, log: quiet });
        for (let round = 0; round < 5; round++) await recordRenders(relay, f.keyId, 30);
        const drains = Array.from({ length: 3 }, () => new UsageDrain(kv, redis, { prefix }));
        let applied = 0;
        for (let round = 0; round < 3; round++) {
          applied += (await Promise.all(drains.map((d) => d.drainOnce()))).reduce((x, y) => x + y);
        }
        assert.equal(applied, 155);
        const s = await usageSummary(kv, f.keyId);
        assert.equal(s.renders, 150);
        assert.equal(s.rendersDenied, 5);
      } finally {
        kv.close();
      }
    }));

  Deno.test(`usage relay - a batch for a deleted key is drained and dropped (${target.name})`, () =>
    target.run(async (redis, prefix) => {
      const kv = await Deno.openKv(":memory:");
      try {
        const relay = new UsageRelay(redis, { prefix, log: quiet });
        await recordRenders(relay, "sk_missing", 3);
        const drain = new UsageDrain(kv, redis, { prefix, log: quiet });
        assert.equal(await drain.drainOnce(), 0);
        assert.equal((await usageSummary(kv, "sk_missing")).rows.length, 0);
        for (let sh = 0; sh < RELAY_SHARDS; sh++) {
          assert.equal(await redis.exists(claimedKey(prefix, sh)), 0);
        }
      } finally {
        kv.close();
      }
    }));
}

Deno.test("usage relay - Redis gone: the counts are dropped and counted, recording never throws", async () => {
  const redis = await connectRedis(TEST_REDIS_URL, quiet, { timeoutMs: 200 });
  await redis.close();
  const dropped = new Counter("kernel_usage_dropped_total", "test");
  const warnings: string[] = [];
  const log = new Logger("warn", (line) => warnings.push(line));
  const relay = new UsageRelay(redis, { prefix: "unused:", log, dropped });
  relay.recordRender("sk_x", "ok", "miss");
  relay.recordRender("sk_x", "ok", "l1");
  await relay.flush();
  assert.equal(relay.dropped, 2);
  assert.equal(dropped.get(), 2);
  assert.ok(warnings.some((w) => w.includes("usage relay")), warnings.join("\n"));
});
