import assert from "node:assert/strict";
import { Keyring } from "../../lib/token/keyring.ts";
import { signToken } from "../../lib/token/sign.ts";
import { type SigningKeyRecord, SigningKeyStore } from "../../lib/token/signing_keys.ts";
import { verifyToken } from "../../lib/token/verify.ts";
import { assertTokenError, newTestKey, validClaims } from "./token_test_utils.ts";

/** A store that counts how often the keyring reads the key list. */
class CountingStore extends SigningKeyStore {
  reads = 0;
  override publishable(): Promise<SigningKeyRecord[]> {
    this.reads++;
    return super.publishable();
  }
}

function manualClock(start = 1_750_000_000_000) {
  let now = start;
  const clock = () => now;
  return Object.assign(clock, { advance: (ms: number) => (now += ms) });
}

async function signWith(record: SigningKeyRecord, nowS: number): Promise<string> {
  const privateKey = await crypto.subtle.importKey("jwk", record.privateJwk, "Ed25519", false, [
    "sign",
  ]);
  return signToken(validClaims(record.kid, { iat: nowS, exp: nowS + 600 }), {
    kid: record.kid,
    privateKey,
  });
}

Deno.test("keyring - load creates the first key and signs with it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = manualClock();
    const store = new SigningKeyStore(kv, clock);
    const keyring = await Keyring.load(store, { clock });
    const current = await store.current();
    assert.equal(keyring.signingKey().kid, current?.kid);
    assert.deepEqual(keyring.kids(), [current?.kid]);
    const nowS = Math.floor(clock() / 1000);
    const token = signToken(
      validClaims(keyring.signingKey().kid, { iat: nowS, exp: nowS + 60 }),
      keyring.signingKey(),
    );
    await verifyToken(token, (kid) => keyring.resolve(kid), { now: nowS });
  } finally {
    kv.close();
  }
});

Deno.test("keyring - picks up a rotation done by another store on the same KV", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = manualClock();
    const store = new CountingStore(kv, clock);
    const keyring = await Keyring.load(store, { clock, reloadCooldownMs: 1000 });
    const before = keyring.signingKey();
    const publicBefore = await keyring.resolve(before.kid);
    const cli = new SigningKeyStore(kv, clock);
    const nowS = Math.floor(clock() / 1000);
    clock.advance(5_000);
    const rotated = await cli.rotate();
    const token = await signWith(rotated, nowS);
    const readsBefore = store.reads;

    await t.step("an unknown kid reloads once and the token verifies", async () => {
      const claims = await verifyToken(token, (kid) => keyring.resolve(kid), { now: nowS });
      assert.equal(claims.kid, rotated.kid);
      assert.equal(store.reads, readsBefore + 1);
    });
    await t.step("the reload also switched signing to the new key", () => {
      assert.equal(keyring.signingKey().kid, rotated.kid);
    });
    await t.step("keys already imported are reused, not imported again", async () => {
      assert.equal(await keyring.resolve(before.kid), publicBefore);
    });
    await t.step("unknown kids within the cooldown do not reach the store", async () => {
      const reads = store.reads;
      const forged = await Promise.all(
        Array.from({ length: 10 }, () => keyring.resolve(crypto.randomUUID())),
      );
      assert.deepEqual(new Set(forged), new Set([undefined]));
      assert.equal(store.reads, reads);
      const stranger = await newTestKey();
      const foreign = signToken(
        validClaims(stranger.kid, { iat: nowS, exp: nowS + 60 }),
        stranger,
      );
      await assertTokenError(
        verifyToken(foreign, (kid) => keyring.resolve(kid), { now: nowS }),
        "unknown_kid",
      );
      assert.equal(store.reads, reads);
    });
    await t.step("after the cooldown one unknown kid reloads again", async () => {
      const reads = store.reads;
      clock.advance(1000);
      await Promise.all([keyring.resolve("nope-1"), keyring.resolve("nope-2")]);
      assert.equal(store.reads, reads + 1, "concurrent misses share one reload");
    });
  } finally {
    kv.close();
  }
});

Deno.test("keyring - auto refresh switches signing within the interval", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new SigningKeyStore(kv, Date.now);
    const keyring = await Keyring.load(store);
    const errors: unknown[] = [];
    const stop = keyring.startAutoRefresh(20, (err) => errors.push(err));
    try {
      const rotated = await new SigningKeyStore(kv, Date.now).rotate();
      const deadline = Date.now() + 2000;
      while (keyring.signingKey().kid !== rotated.kid && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(keyring.signingKey().kid, rotated.kid);
      assert.deepEqual(errors, []);
    } finally {
      await stop();
    }
  } finally {
    kv.close();
  }
});

Deno.test("keyring - refresh failures keep the keys it has", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const store = new SigningKeyStore(kv, clock);
  const keyring = await Keyring.load(store, { clock, reloadCooldownMs: 0 });
  const kid = keyring.signingKey().kid;
  kv.close();
  await assert.rejects(keyring.refresh());
  assert.equal(keyring.signingKey().kid, kid);
  assert.ok(await keyring.resolve(kid));
  assert.equal(await keyring.resolve("unknown"), undefined);
});
