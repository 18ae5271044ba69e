/**
 * Revocations and Redis: Redis is no longer where revocations live (docs/tokens.md, Revocation),
 * so losing its data un-revokes nothing; and what earlier versions kept there is copied into the
 * Deno KV revocation log once (lib/hub/revocation_backfill.ts: it scans every master of a Redis
 * Cluster). A private redis-server takes the FLUSHALL and the restart; the shared one only holds a
 * random test prefix.
 */
import assert from "node:assert/strict";
import { backfillRevocations } from "@/lib/hub/revocation_backfill.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { revokeToken } from "@/lib/hub/token_revocation.ts";
import { RevocationReplica } from "@/lib/render/revocation_replica.ts";
import { updateSdkKey } from "@/lib/store/sdk_keys.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { rid } from "../_helpers/redis.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import { startTestServer } from "../_helpers/server.ts";
import { expectProblem, mintToken, render, setupRender } from "../render/render_helpers.ts";

function jtiOf(token: string): { jti: string; exp: number } {
  return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
}

/** Renders until the answer is not a 503 (Redis reconnecting); returns that response. */
async function renderOnceRedisAnswers(
  url: string,
  token: string,
  origin: string,
  body: unknown,
): Promise<Response> {
  for (let i = 0; i < 200; i++) {
    const res = await render(url, token, origin, body);
    if (res.status !== 503) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("Redis did not come back within 10 s");
}

Deno.test("revocation - a Redis FLUSHALL or restart un-revokes nothing", async (t) => {
  const redis = await PrivateRedis.start();
  const server = await startTestServer({ env: { REDIS_URL: redis.url } });
  try {
    const replica = server.deps.render!.revocations;
    const body = { dag: await finishedDag("plate") };
    const byKey = await setupRender(server.deps.kv, server.url);
    const byJti = await setupRender(server.deps.kv, server.url);
    for (const s of [byKey, byJti]) {
      const ok = await render(server.url, s.token, s.origin, body);
      assert.equal(ok.status, 200, await ok.text());
    }
    await revokeSdkKey(server.deps.kv, byKey.keyId, { replica });
    const { jti, exp } = jtiOf(byJti.token);
    await revokeToken(server.deps.kv, jti, exp, { replica });

    const refused = async () => {
      await expectProblem(
        await renderOnceRedisAnswers(server.url, byKey.token, byKey.origin, body),
        401,
        "token_revoked",
      );
      await expectProblem(
        await renderOnceRedisAnswers(server.url, byJti.token, byJti.origin, body),
        401,
        "token_revoked",
      );
      // The same key's other tokens are not revoked: a fresh one renders (a new budget counter).
      const sibling = await mintToken(server.url, byJti);
      const ok = await renderOnceRedisAnswers(server.url, sibling, byJti.origin, body);
      assert.equal(ok.status, 200, await ok.text());
    };
    await t.step("revoked, Redis intact", refused);
    await t.step("after FLUSHALL", async () => {
      await redis.flushAll();
      await refused();
    });
    await t.step("after a restart of Redis (empty, no persistence)", async () => {
      await redis.restart();
      await refused();
    });
    await t.step("while Redis is down the revoked tokens still read token_revoked", async () => {
      await redis.stop();
      await expectProblem(
        await render(server.url, byKey.token, byKey.origin, body),
        401,
        "token_revoked",
      );
      await redis.restart();
    });
  } finally {
    if (!redis.running) await redis.restart(); // the server's cleanup deletes its prefix there
    await server.close();
    await redis.stop();
  }
});

for (const target of REDIS_TARGETS) {
  Deno.test(`revocation - revocations of earlier versions (Redis keys, KV records) are copied into the log once (${target.name})`, async () => {
    await target.run(async (redisClient, prefix) => {
      const kv = await Deno.openKv(":memory:");
      try {
        const now = Date.now();
        // A key revoked through its record only (no log entry), as before the log existed.
        const f = await createKeyFixture(kv);
        await updateSdkKey(kv, f.keyId, (r) => ({ ...r, revokedAt: now - 60_000 }));
        // A token revoked in KV without Redis, tokens revoked in Redis; a key revoked in Redis only.
        const kvJti = rid(16);
        await kv.set(["revoked_tokens", kvJti], true, { expireIn: 3600_000 });
        // Eight of them in Redis: on a cluster they land on several masters, all scanned.
        const redisJtis = Array.from({ length: 8 }, () => rid(16));
        for (const redisJti of redisJtis) {
          await redisClient.set(`${prefix}revoked:jti:${redisJti}`, "1", {
            expiration: { type: "PX", value: 3600_000 },
          });
        }
        const redisKey = `k${rid(10)}`;
        await redisClient.set(`${prefix}revoked:key:${redisKey}`, String(Math.floor(now / 1000)));

        const copied = await backfillRevocations(kv, { redis: redisClient, prefix, now });
        assert.equal(copied, 3 + redisJtis.length);
        assert.equal(await backfillRevocations(kv, { redis: redisClient, prefix, now }), 0, "once");

        const replica = new RevocationReplica(kv);
        await replica.sync();
        for (
          const subject of [
            { client_id: f.keyId, jti: rid(16) },
            { client_id: "kx", jti: kvJti },
            ...redisJtis.map((jti) => ({ client_id: "kx", jti })),
            { client_id: redisKey, jti: rid(16) },
          ]
        ) {
          assert.equal(await replica.isRevoked(subject), true, JSON.stringify(subject));
        }
        assert.equal(await replica.isRevoked({ client_id: "kx", jti: rid(16) }), false);
      } finally {
        kv.close();
      }
    });
  });
}
