import assert from "node:assert/strict";
import { AppError } from "@/lib/http/problem.ts";
import { BUDGET_GRACE_S, MemoryBudgetStore, RedisBudgetStore } from "@/lib/render/budget.ts";
import { CLOCK_LEEWAY_S } from "@/lib/token/claims.ts";
import { rid } from "../_helpers/redis.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";

/** Whether `err` is the "budget state lost, mint again" refusal. */
function isBudgetReset(err: unknown): boolean {
  return err instanceof AppError && err.code === "token_expired" &&
    err.extensions.reason === "budget_reset";
}

for (const target of REDIS_TARGETS) {
  Deno.test(`budget - Redis spends atomically and refuses past the cap (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const store = new RedisBudgetStore(redis, prefix);
      const jti = rid(16);
      const exp = Math.floor(Date.now() / 1000) + 600;
      await store.open(jti, 5, exp);
      // 20 concurrent spends against a budget of 5: exactly 5 are allowed.
      const results = await Promise.all(Array.from({ length: 20 }, () => store.spend(jti, 5, exp)));
      assert.equal(results.filter((r) => r.allowed).length, 5);
      assert.deepEqual(
        results.filter((r) => r.allowed).map((r) => r.remaining).sort(),
        [0, 1, 2, 3, 4],
      );
      assert.ok(results.filter((r) => !r.allowed).every((r) => r.remaining === 0));
      // Refused spends count nothing: the counter stays at the budget.
      assert.equal(await redis.get(`${prefix}budget:{${jti}}`), "5");
      // Unlimited budgets never touch Redis.
      await store.open(rid(16), null, exp);
      assert.deepEqual(await store.spend(rid(16), null, exp), { allowed: true, remaining: null });
      assert.equal((await admin.keys(`${prefix}budget:*`)).length, 1);
      // A flushed script cache is reloaded transparently.
      await admin.flushScripts();
      const other = rid(16);
      await store.open(other, 1, exp);
      assert.equal((await store.spend(other, 1, exp)).allowed, true);
    });
  });

  Deno.test(`budget - the counter outlives the verifier's leeway after exp (${target.name})`, async () => {
    await target.run(async (redis, prefix) => {
      const store = new RedisBudgetStore(redis, prefix);
      const jti = rid(16);
      // A token that expired 30 s ago: the verifier still accepts it for another 30 s.
      const exp = Math.floor(Date.now() / 1000) - 30;
      await store.open(jti, 3, exp);
      const ttl = await redis.ttl(`${prefix}budget:{${jti}}`);
      assert.ok(
        ttl > CLOCK_LEEWAY_S - 30 && ttl <= BUDGET_GRACE_S - 30,
        `the counter lives past exp + leeway (ttl ${ttl} s)`,
      );
      // Twenty renders inside the leeway: exactly the budget is served.
      const results = await Promise.all(Array.from({ length: 20 }, () => store.spend(jti, 3, exp)));
      assert.equal(results.filter((r) => r.allowed).length, 3);
    });
  });

  Deno.test(`budget - open is idempotent and refund gives back exactly what was spent (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const store = new RedisBudgetStore(redis, prefix);
      const jti = rid(16);
      const exp = Math.floor(Date.now() / 1000) + 600;
      await store.open(jti, 4, exp);
      await store.spend(jti, 4, exp);
      await store.open(jti, 4, exp); // a retried open does not reset the counter
      assert.deepEqual(await store.spend(jti, 4, exp), { allowed: true, remaining: 2 });
      // Spend everything, then refund two renders that were not served: exactly two more fit.
      await store.spend(jti, 4, exp);
      await store.spend(jti, 4, exp);
      assert.equal((await store.spend(jti, 4, exp)).allowed, false);
      await Promise.all([store.refund(jti, 4), store.refund(jti, 4)]);
      const again = await Promise.all(Array.from({ length: 10 }, () => store.spend(jti, 4, exp)));
      assert.equal(again.filter((r) => r.allowed).length, 2);
      // A refund never goes below zero and never re-creates a missing counter.
      const fresh = rid(16);
      await store.open(fresh, 2, exp);
      await store.refund(fresh, 2);
      assert.equal(await redis.get(`${prefix}budget:{${fresh}}`), "0");
      await store.refund(rid(16), 2);
      assert.equal((await admin.keys(`${prefix}budget:*`)).length, 2);
    });
  });

  Deno.test(`budget - a counter lost with Redis data refuses the token as expired (re-mint) (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const store = new RedisBudgetStore(redis, prefix);
      const jti = rid(16);
      const exp = Math.floor(Date.now() / 1000) + 600;
      await store.open(jti, 5, exp);
      assert.equal((await store.spend(jti, 5, exp)).allowed, true);
      await redis.del(`${prefix}budget:{${jti}}`); // what a wipe does to this token
      await assert.rejects(store.spend(jti, 5, exp), isBudgetReset);
      // A token that was never opened is refused the same way, and nothing is created.
      await assert.rejects(store.spend(rid(16), 5, exp), isBudgetReset);
      assert.equal((await admin.keys(`${prefix}budget:*`)).length, 0);
    });
  });

  Deno.test(`budget - a dead Redis fails closed with service_unavailable (${target.name})`, async () => {
    await target.run(async (redis, prefix) => {
      const store = new RedisBudgetStore(redis, prefix);
      await redis.close();
      const exp = Math.floor(Date.now() / 1000) + 60;
      const unavailable = (e: Error & { code?: string }) => e.code === "service_unavailable";
      await assert.rejects(store.spend(rid(16), 3, exp), unavailable);
      await assert.rejects(store.open(rid(16), 3, exp), unavailable);
    });
  });

  Deno.test(`budget - many tokens at once each get exactly their budget (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const store = new RedisBudgetStore(redis, prefix);
      const exp = Math.floor(Date.now() / 1000) + 600;
      // 60 tokens with budgets 1..5, 12 spends each, all at once and interleaved.
      const tokens = Array.from({ length: 60 }, (_, i) => ({ jti: rid(16), budget: 1 + (i % 5) }));
      await Promise.all(tokens.map((t) => store.open(t.jti, t.budget, exp)));
      const spends = tokens.flatMap((t) => Array.from({ length: 12 }, () => t));
      const results = await Promise.all(spends.map((t) => store.spend(t.jti, t.budget, exp)));
      for (const t of tokens) {
        const mine = results.filter((_, i) => spends[i] === t);
        assert.equal(mine.filter((r) => r.allowed).length, t.budget, t.jti);
        assert.equal(await redis.get(`${prefix}budget:{${t.jti}}`), String(t.budget));
      }
      assert.equal((await admin.keys(`${prefix}budget:*`)).length, tokens.length);
      if (admin.cluster) {
        // The counters are spread over every master of the cluster.
        const holders = new Set<number>();
        for (const t of tokens) {
          holders.add((await admin.cluster.nodeOf(`${prefix}budget:{${t.jti}}`)).port);
        }
        assert.equal(holders.size, admin.cluster.nodes.length);
      }
    });
  });
}

Deno.test("budget - the in-process store counts per jti, refunds, and refuses unknown tokens", async () => {
  let now = Date.now();
  const store = new MemoryBudgetStore(() => now);
  const exp = Math.floor(now / 1000) + 60;
  for (const jti of ["a", "b", "c"]) await store.open(jti, jti === "c" ? 0 : 2, exp);
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: true, remaining: 1 });
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: true, remaining: 0 });
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: false, remaining: 0 });
  await store.refund("a", 2);
  assert.deepEqual(await store.spend("a", 2, exp), { allowed: true, remaining: 0 });
  assert.deepEqual(await store.spend("b", 2, exp), { allowed: true, remaining: 1 });
  assert.deepEqual(await store.spend("c", 0, exp), { allowed: false, remaining: 0 });
  // A restarted process knows no tokens: they are sent to mint again, never given a new budget.
  await assert.rejects(store.spend("never-opened", 2, exp), isBudgetReset);
  // The entry lives through the leeway after exp, then goes.
  now = (exp + CLOCK_LEEWAY_S) * 1000;
  assert.deepEqual(await store.spend("b", 2, exp), { allowed: true, remaining: 0 });
  now = (exp + BUDGET_GRACE_S + 1) * 1000;
  await assert.rejects(store.spend("b", 2, exp), isBudgetReset);
});
