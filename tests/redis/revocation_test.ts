import assert from "node:assert/strict";
import { KvRevocationList, RedisRevocationList } from "@/lib/redis/revocation.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { rid, withRedis } from "../_helpers/redis.ts";

Deno.test("revocation - Redis: a revoked key refuses all its tokens, a revoked jti only itself", async () => {
  await withRedis(async (redis, prefix) => {
    const list = new RedisRevocationList(redis, prefix);
    const exp = Math.floor(Date.now() / 1000) + 600;
    const a = { client_id: `k${rid(10)}`, jti: rid(16) };
    const b = { client_id: `k${rid(10)}`, jti: rid(16) };
    assert.equal(await list.isRevoked(a), false);
    await list.revokeToken(a.jti, exp);
    assert.equal(await list.isRevoked(a), true);
    assert.equal(await list.isRevoked({ ...a, jti: rid(16) }), false);
    await list.revokeKey(b.client_id, Date.now());
    assert.equal(await list.isRevoked(b), true);
    assert.equal(await list.isRevoked({ ...b, jti: rid(16) }), true);
    const ttl = await redis.ttl(`${prefix}revoked:key:${b.client_id}`);
    assert.ok(ttl > 12 * 3600, "a key revocation outlives every token of the key");
  });
});

Deno.test("revocation - KV: revoking through the key record stops its tokens", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const f = await createKeyFixture(kv);
    const list = new KvRevocationList(kv);
    const subject = { client_id: f.keyId, jti: rid(16) };
    assert.equal(await list.isRevoked(subject), false);
    await revokeSdkKey(kv, f.keyId, { revocations: list });
    assert.equal(await list.isRevoked(subject), true);
    const other = { client_id: `k${rid(10)}`, jti: rid(16) };
    await list.revokeToken(other.jti, Math.floor(Date.now() / 1000) + 60);
    assert.equal(await list.isRevoked(other), true);
  } finally {
    kv.close();
  }
});
