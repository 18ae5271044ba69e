/**
 * A retried render is not paid twice: a spend under an idempotency key that already paid answers
 * "allowed, the same remaining" and spends nothing, on the shared Redis and on a real three-master
 * cluster (the record shares the counter's `{jti}` slot), and in the memory store.
 */
import assert from "node:assert/strict";
import { AppError } from "@/lib/http/problem.ts";
import { type BudgetStore, MemoryBudgetStore, RedisBudgetStore } from "@/lib/render/budget.ts";
import { rid } from "../_helpers/redis.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";

const FP = "a".repeat(64);

function isCode(code: string) {
  return (err: unknown) => err instanceof AppError && err.code === code;
}

/** The behaviour both stores share; `used` reads the units spent. */
async function sharedBehaviour(store: BudgetStore, used: (jti: string) => Promise<number>) {
  const exp = Math.floor(Date.now() / 1000) + 600;
  const jti = rid(16);
  await store.open(jti, 10, exp);
  const key = rid(16);
  // The same key replayed: one unit, the same remaining.
  const first = await store.spend(jti, 10, exp, { key, fingerprint: FP });
  const again = await store.spend(jti, 10, exp, { key, fingerprint: FP });
  assert.deepEqual(first, { allowed: true, remaining: 9 });
  assert.deepEqual(again, { allowed: true, remaining: 9, replayed: true });
  assert.equal(await used(jti), 1);
  // Two keys: two units.
  await store.spend(jti, 10, exp, { key: rid(16), fingerprint: FP });
  await store.spend(jti, 10, exp, { key: rid(16), fingerprint: FP });
  assert.equal(await used(jti), 3);
  // Without a key every request pays, as before.
  await store.spend(jti, 10, exp);
  assert.equal(await used(jti), 4);
  // The key with another request: refused, nothing spent.
  await assert.rejects(
    store.spend(jti, 10, exp, { key, fingerprint: "b".repeat(64) }),
    isCode("idempotency_key_reused"),
  );
  assert.equal(await used(jti), 4);
  // The same key under another token is that token's own first spend.
  const other = rid(16);
  await store.open(other, 10, exp);
  assert.deepEqual(await store.spend(other, 10, exp, { key, fingerprint: FP }), {
    allowed: true,
    remaining: 9,
  });
  // 30 concurrent requests with one key: one unit.
  const shared = rid(16);
  const results = await Promise.all(
    Array.from({ length: 30 }, () => store.spend(jti, 10, exp, { key: shared, fingerprint: FP })),
  );
  assert.ok(results.every((r) => r.allowed && r.remaining === 5), JSON.stringify(results));
  assert.equal(results.filter((r) => !r.replayed).length, 1);
  assert.equal(await used(jti), 5);
  // A refund gives the unit back and forgets the key: its retry pays again.
  const refunded = rid(16);
  await store.spend(jti, 10, exp, { key: refunded, fingerprint: FP });
  assert.equal(await used(jti), 6);
  await store.refund(jti, 10, refunded);
  assert.equal(await used(jti), 5);
  assert.deepEqual(await store.spend(jti, 10, exp, { key: refunded, fingerprint: FP }), {
    allowed: true,
    remaining: 4,
  });
  // A spent-out budget refuses new keys, while a key that paid still replays.
  for (let i = 0; i < 4; i++) await store.spend(jti, 10, exp);
  assert.deepEqual(await store.spend(jti, 10, exp, { key: rid(16), fingerprint: FP }), {
    allowed: false,
    remaining: 0,
  });
  assert.deepEqual(await store.spend(jti, 10, exp, { key, fingerprint: FP }), {
    allowed: true,
    remaining: 9,
    replayed: true,
  });
  // A lost counter is lost whatever the key.
  await assert.rejects(
    store.spend(rid(16), 10, exp, { key, fingerprint: FP }),
    isCode("token_expired"),
  );
}

for (const target of REDIS_TARGETS) {
  Deno.test(`budget idempotency - a key pays once, concurrently too (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const store = new RedisBudgetStore(redis, prefix);
      await sharedBehaviour(
        store,
        async (jti) => Number(await redis.get(`${prefix}budget:{${jti}}`)),
      );
      // Every record lives exactly as long as its counter, in its slot.
      const jti = rid(16);
      const exp = Math.floor(Date.now() / 1000) + 600;
      await store.open(jti, 3, exp);
      const key = rid(16);
      await store.spend(jti, 3, exp, { key, fingerprint: FP });
      const record = `${prefix}budget:{${jti}}:idem:${key}`;
      assert.deepEqual(await admin.keys(`${prefix}budget:{${jti}}*`), [
        `${prefix}budget:{${jti}}`,
        record,
      ]);
      const [counterTtl, recordTtl] = await Promise.all([
        redis.pTTL(`${prefix}budget:{${jti}}`),
        redis.pTTL(record),
      ]);
      assert.ok(recordTtl > 0 && recordTtl <= counterTtl, `${recordTtl} vs ${counterTtl}`);
    });
  });
}

Deno.test("budget idempotency - the memory store keeps the same rules", async () => {
  const store = new MemoryBudgetStore();
  // The memory store has no reader of its counter: a spend's remaining says how much was used.
  const used = async (jti: string) => {
    const probe = await store.spend(jti, 10, 0, { key: `probe${rid(8)}`, fingerprint: FP });
    if (!probe.allowed) return 10;
    await store.refund(jti, 10, undefined);
    return 10 - (probe.remaining ?? 0) - 1;
  };
  await sharedBehaviour(store, used);
});
