import assert from "node:assert/strict";
import { MemoryBudgetStore, RedisBudgetStore } from "@/lib/redis/budget.ts";
import { rid, withRedis } from "../_helpers/redis.ts";

Deno.test("budget - Redis spends atomically, expires with the token and refuses past the cap", async () => {
  await withRedis(async (redis, prefix) => {
    const store = new RedisBudgetStore(redis, prefix);
    const jti = rid(16);
    const exp = Math.floor(Date.now() / 1000) + 600;
    // 20 concurrent spends against a budget of 5: exactly 5 are allowed.
    const results = await Promise.all(Array.from({ length: 20 }, () => store.spend(jti, 5, exp)));
    assert.equal(results.filter((r) => r.allowed).length, 5);
    assert.deepEqual(
      results.filter((r) => r.allowed).map((r) => r.remaining).sort(),
      [0, 1, 2, 3, 4],
    );
    assert.ok(results.filter((r) => !r.allowed).every((r) => r.remaining === 0));
    const ttl = await redis.ttl(`${prefix}budget:{${jti}}`);
    assert.ok(ttl > 590 && ttl <= 600, `the counter expires with the token (ttl ${ttl})`);
    // Unlimited budgets never touch Redis.
    assert.deepEqual(await store.spend(rid(16), null, exp), { allowed: true, remaining: null });
    // A flushed script cache is reloaded transparently.
    await redis.scriptFlush();
    assert.equal((await store.spend(rid(16), 1, exp)).allowed, true);
  });
});

Deno.test("budget - a dead Redis fails closed with service_unavailable", async () => {
  await withRedis(async (redis, prefix) => {
    const store = new RedisBudgetStore(redis, prefix);
    await redis.close();
    await assert.rejects(
      store.spend(rid(16), 3, Math.floor(Date.now() / 1000) + 60),
      (e: Error & { code?: string }) => e.code === "service_unavailable",
    );
  });
});

Deno.test("budget - the in-process store counts per jti", async () => {
  const store = new MemoryBudgetStore();
  const exp = Math.floor(Date.now() / 1000) + 60;
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: true, remaining: 1 });
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: true, remaining: 0 });
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: false, remaining: 0 });
  assert.deepEqual(await store.spend("b", 2, exp), { allowed: true, remaining: 1 });
  assert.deepEqual(await store.spend("c", 0, exp), { allowed: false, remaining: 0 });
});
