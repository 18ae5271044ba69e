/**
 * The revocation log in Deno KV (lib/store/revocations.ts) and a node's replica of it
 * (lib/render/revocation_replica.ts), against real KV: what is revoked, what a load sees, the
 * fail-closed bound with a controllable elapsed-time clock, and a log without gaps under
 * concurrent writers.
 */
import assert from "node:assert/strict";
import { AppError } from "@/lib/http/problem.ts";
import { openKv } from "@/lib/store/kv.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { revokeToken } from "@/lib/hub/token_revocation.ts";
import { REVOCATION_MAX_STALENESS_MS, RevocationReplica } from "@/lib/render/revocation_replica.ts";
import {
  KEY_REVOCATION_RETENTION_MS,
  listRevocations,
  revocationHead,
} from "@/lib/store/revocations.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { rid } from "../_helpers/redis.ts";

const nowS = () => Math.floor(Date.now() / 1000);

async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

Deno.test("revocation replica - a revoked key refuses all its tokens, a revoked jti only itself", async () => {
  await withKv(async (kv) => {
    const f = await createKeyFixture(kv);
    const replica = new RevocationReplica(kv);
    const token = { client_id: f.keyId, jti: rid(16) };
    const other = { client_id: `k${rid(10)}`, jti: rid(16) };
    await replica.sync();
    assert.equal(await replica.isRevoked(token), false);

    await revokeToken(kv, other.jti, nowS() + 600, { replica });
    assert.equal(await replica.isRevoked(other), true);
    assert.equal(await replica.isRevoked({ ...other, jti: rid(16) }), false, "its key is not");

    const record = await revokeSdkKey(kv, f.keyId, { replica });
    assert.notEqual(record?.revokedAt, null, "the key record is revoked in the same commit");
    assert.equal(await replica.isRevoked(token), true);
    assert.equal(await replica.isRevoked({ ...token, jti: rid(16) }), true, "every token of it");

    // Revoking again changes nothing and logs nothing.
    const head = (await revocationHead(kv)).seq;
    await revokeSdkKey(kv, f.keyId);
    assert.equal((await revocationHead(kv)).seq, head);
    const [logged] = (await listRevocations(kv, 0, head)).filter((l) => l.entry.kind === "key");
    assert.equal(logged.entry.id, f.keyId);
    assert.equal(logged.entry.until - logged.entry.at, KEY_REVOCATION_RETENTION_MS);
  });
});

Deno.test("revocation replica - a new node loads the live log in full; expired entries are not held", async () => {
  await withKv(async (kv) => {
    const f = await createKeyFixture(kv);
    await revokeSdkKey(kv, f.keyId);
    const live = rid(16);
    await revokeToken(kv, live, nowS() + 3600);
    const expired = rid(16);
    await revokeToken(kv, expired, nowS() - 3600); // exp + leeway long past

    const replica = new RevocationReplica(kv);
    replica.start();
    try {
      // The first checks wait for the first load instead of refusing.
      assert.equal(await replica.isRevoked({ client_id: f.keyId, jti: rid(16) }), true);
      assert.equal(await replica.isRevoked({ client_id: "kx", jti: live }), true);
      assert.equal(await replica.isRevoked({ client_id: "kx", jti: expired }), false);
      const stats = replica.stats();
      assert.deepEqual([stats.keys, stats.tokens], [1, 1]);
    } finally {
      await replica.stop();
    }
  });
});

Deno.test("revocation replica - fails closed once the log was not read for longer than the bound", async (t) => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await openKv(path);
  let elapsed = 0;
  const replica = new RevocationReplica(kv, { elapsed: () => elapsed });
  const subject = { client_id: `k${rid(10)}`, jti: rid(16) };
  try {
    await t.step("never read: refused, not answered", async () => {
      await assert.rejects(replica.isRevoked(subject), isServiceUnavailable);
    });

    await t.step("fresh up to the bound, refused past it, fresh again after a read", async () => {
      await replica.sync();
      elapsed += REVOCATION_MAX_STALENESS_MS;
      assert.equal(await replica.isRevoked(subject), false);
      elapsed += 1;
      await assert.rejects(replica.isRevoked(subject), isServiceUnavailable);
      await replica.sync();
      assert.equal(await replica.isRevoked(subject), false);
    });

    await t.step(
      "KV unreadable: reads fail, and past the bound every check is refused",
      async () => {
        kv.close();
        await assert.rejects(replica.sync());
        assert.equal(await replica.isRevoked(subject), false, "still within the bound");
        elapsed += REVOCATION_MAX_STALENESS_MS + 1;
        await assert.rejects(replica.sync());
        await assert.rejects(replica.isRevoked(subject), isServiceUnavailable);
      },
    );
  } finally {
    try {
      kv.close();
    } catch { /* closed by the test */ }
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("revocation replica - concurrent revocations all arrive: the log has no gaps", async () => {
  await withKv(async (kv) => {
    const replica = new RevocationReplica(kv);
    await replica.sync();
    const f = await createKeyFixture(kv);
    const jtis = Array.from({ length: 12 }, () => rid(16));
    await Promise.all([
      ...jtis.map((jti) => revokeToken(kv, jti, nowS() + 600)),
      revokeSdkKey(kv, f.keyId),
    ]);
    assert.equal((await revocationHead(kv)).seq, jtis.length + 1);
    const seqs = (await listRevocations(kv, 0, jtis.length + 1)).map((l) => l.seq);
    assert.deepEqual(seqs, Array.from({ length: jtis.length + 1 }, (_, i) => i + 1));
    await replica.sync();
    for (const jti of jtis) assert.equal(await replica.isRevoked({ client_id: "kx", jti }), true);
    assert.equal(await replica.isRevoked({ client_id: f.keyId, jti: rid(16) }), true);
  });
});

Deno.test("revocation replica - a rewritten log is read again from the start, nothing held is dropped", async () => {
  await withKv(async (kv) => {
    const replica = new RevocationReplica(kv);
    const first = [rid(16), rid(16)];
    for (const jti of first) await revokeToken(kv, jti, nowS() + 600, { replica });
    // A store restored from an older backup: the head back at 1, then a new revocation takes
    // position 2 again — the same position the replica already holds, with another entry.
    await kv.delete(["revocation_log", 2]);
    await kv.set(["revocation_head"], 1);
    const after = rid(16);
    await revokeToken(kv, after, nowS() + 600, { replica });
    assert.equal((await revocationHead(kv)).seq, 2);
    for (const jti of [...first, after]) {
      assert.equal(await replica.isRevoked({ client_id: "kx", jti }), true, jti);
    }
  });
});

function isServiceUnavailable(err: unknown): boolean {
  assert.ok(err instanceof AppError);
  assert.equal(err.code, "service_unavailable");
  assert.equal(err.headers["Retry-After"], "1");
  return true;
}
