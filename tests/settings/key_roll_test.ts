import assert from "node:assert/strict";
import { parsePartnerKey } from "@/lib/hub/partner_key.ts";
import { graceUntil, revokeSdkKey, rollSdkKeySecret, secretAccepted } from "@/lib/hub/sdk_keys.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { createTestApp } from "../_helpers/app.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";

async function accepted(kv: Deno.Kv, plaintext: string, now: number): Promise<boolean> {
  const { keyId, secret } = parsePartnerKey(plaintext);
  return await secretAccepted((await getSdkKey(kv, keyId))!, secret, now);
}

Deno.test("key roll - keeps the keyId; the old secret works until graceUntil, then not", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const f = await createKeyFixture(kv);
    const t0 = Date.now();
    const rolled = (await rollSdkKeySecret(kv, f.keyId, { graceSeconds: 3600, now: t0 }))!;
    assert.equal(parsePartnerKey(rolled.key).keyId, f.keyId);
    assert.notEqual(rolled.key, f.key);
    assert.equal(graceUntil(rolled.record, t0), t0 + 3600_000);
    assert.equal(await accepted(kv, f.key, t0 + 3599_000), true, "old secret in grace");
    assert.equal(await accepted(kv, rolled.key, t0 + 3599_000), true, "new secret");
    assert.equal(await accepted(kv, f.key, t0 + 3600_000), false, "old secret after grace");
    assert.equal(await accepted(kv, rolled.key, t0 + 10 * 3600_000), true);

    // A second roll with no grace ends both earlier secrets at once and drops expired ones.
    const again = (await rollSdkKeySecret(kv, f.keyId, { graceSeconds: 0, now: t0 + 60_000 }))!;
    assert.equal(again.record.secrets.length, 1);
    assert.equal(await accepted(kv, rolled.key, t0 + 60_000), false);
    assert.equal(await accepted(kv, again.key, t0 + 60_000), true);

    await assert.rejects(rollSdkKeySecret(kv, f.keyId, { graceSeconds: 8 * 86400 }), {
      code: "validation_failed",
    });
    await assert.rejects(
      rollSdkKeySecret(kv, f.keyId, { graceSeconds: 60, partnerId: "prt_someone_else" }),
      { code: "not_found" },
    );
    await revokeSdkKey(kv, f.keyId);
    await assert.rejects(rollSdkKeySecret(kv, f.keyId, { graceSeconds: 60 }), {
      code: "key_revoked",
    });
  } finally {
    kv.close();
  }
});

Deno.test("key roll - the mint endpoint accepts the previous secret during grace only", async () => {
  let now = Date.now();
  const app = await createTestApp({ clock: () => now });
  try {
    const { kv } = app.deps;
    const f = await createKeyFixture(kv);
    const serverMint = (key: string) =>
      app.mint({ projectId: f.project, origin: f.origin }, {
        authorization: `Bearer ${key}`,
      });
    const rolled = (await rollSdkKeySecret(kv, f.keyId, { graceSeconds: 300, now }))!;
    app.deps.hub!.keys.invalidate(f.keyId);
    for (const key of [f.key, rolled.key]) {
      const res = await serverMint(key);
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal((await res.json()).mode, "secret");
    }
    now += 301_000;
    const old = await serverMint(f.key);
    assert.equal(old.status, 401);
    assert.equal((await old.json()).code, "invalid_credentials");
    const fresh = await serverMint(rolled.key);
    assert.equal(fresh.status, 200);
    await fresh.body?.cancel();
  } finally {
    await app.close();
  }
});
