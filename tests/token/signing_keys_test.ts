import assert from "node:assert/strict";
import { toJwks } from "../../lib/token/jwks.ts";
import { Keyring } from "../../lib/token/keyring.ts";
import { signToken } from "../../lib/token/sign.ts";
import { jwkThumbprint, PUBLISH_WINDOW_MS, SigningKeyStore } from "../../lib/token/signing_keys.ts";
import { verifyToken } from "../../lib/token/verify.ts";
import { validClaims } from "./token_test_utils.ts";

/** A clock tests can move; epoch milliseconds. */
function manualClock(start = 1_750_000_000_000) {
  let now = start;
  const clock = () => now;
  return Object.assign(clock, { advance: (ms: number) => (now += ms) });
}

Deno.test("signing keys - kid is the RFC 7638 thumbprint (RFC 8037 A.3 vector)", async () => {
  const kid = await jwkThumbprint({
    kty: "OKP",
    crv: "Ed25519",
    x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
  });
  assert.equal(kid, "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
  await assert.rejects(jwkThumbprint({ kty: "RSA", n: "x", e: "AQAB" }), TypeError);
});

Deno.test("signing keys - ensureCurrent creates the first key once, even under a race", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = manualClock();
    const stores = Array.from({ length: 5 }, () => new SigningKeyStore(kv, clock));
    await t.step("concurrent first starts agree on one key", async () => {
      const records = await Promise.all(stores.map((s) => s.ensureCurrent()));
      assert.equal(new Set(records.map((r) => r.kid)).size, 1);
      assert.equal((await stores[0].list()).length, 1);
    });
    await t.step("the record is well formed", async () => {
      const record = await stores[0].ensureCurrent();
      assert.equal(record.kid, await jwkThumbprint(record.publicJwk));
      assert.equal(record.retiredAt, null);
      assert.equal(record.createdAt, clock());
      assert.equal(record.publicJwk.d, undefined);
      assert.equal(typeof record.privateJwk.d, "string");
      assert.equal((await stores[1].current())?.kid, record.kid);
    });
  } finally {
    kv.close();
  }
});

Deno.test("signing keys - rotation retires the previous key and keeps it published", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = manualClock();
    const store = new SigningKeyStore(kv, clock);
    const first = await store.ensureCurrent();
    clock.advance(5_000);
    const second = await store.rotate();
    const rotatedAt = clock();

    await t.step("the new key is current, the old one retired at the rotation time", async () => {
      assert.notEqual(second.kid, first.kid);
      assert.equal((await store.current())?.kid, second.kid);
      const byKid = new Map((await store.list()).map((r) => [r.kid, r]));
      assert.equal(byKid.get(first.kid)?.retiredAt, rotatedAt);
      assert.equal(byKid.get(second.kid)?.retiredAt, null);
    });
    await t.step("both are publishable until the window closes", async () => {
      const kids = (await store.publishable()).map((r) => r.kid).sort();
      assert.deepEqual(kids, [first.kid, second.kid].sort());
      clock.advance(PUBLISH_WINDOW_MS - 1);
      assert.equal((await store.publishable()).length, 2);
    });
    await t.step("after the window only the current key is publishable", async () => {
      clock.advance(1);
      assert.deepEqual((await store.publishable()).map((r) => r.kid), [second.kid]);
      assert.equal((await store.list()).length, 2, "records are kept");
    });
    await t.step("the JWK Set never carries private members", async () => {
      const jwks = toJwks(await store.list());
      assert.equal(jwks.keys.length, 2);
      for (const jwk of jwks.keys) {
        assert.deepEqual(Object.keys(jwk).sort(), ["alg", "crv", "kid", "kty", "use", "x"]);
      }
    });
  } finally {
    kv.close();
  }
});

Deno.test("signing keys - rotate on an empty store creates the first key", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new SigningKeyStore(kv, manualClock());
    const record = await store.rotate();
    assert.equal((await store.ensureCurrent()).kid, record.kid);
  } finally {
    kv.close();
  }
});

Deno.test("signing keys - concurrent rotations leave exactly one current key", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = manualClock();
    const a = new SigningKeyStore(kv, clock);
    const b = new SigningKeyStore(kv, clock);
    await a.ensureCurrent();
    await Promise.all([a.rotate(), b.rotate(), a.rotate()]);
    const all = await a.list();
    const current = await a.current();
    assert.equal(all.length, 4);
    assert.deepEqual(all.filter((r) => r.retiredAt === null).map((r) => r.kid), [current?.kid]);
    assert.equal((await a.publishable()).length, 4);
  } finally {
    kv.close();
  }
});

Deno.test("signing keys - a token signed by a retired but published key still verifies", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = manualClock();
    const store = new SigningKeyStore(kv, clock);
    const keyring = await Keyring.load(store, { clock });
    const oldKey = keyring.signingKey();
    const nowS = Math.floor(clock() / 1000);
    const token = signToken(
      validClaims(oldKey.kid, { iat: nowS, exp: nowS + 3600 }),
      oldKey,
    );

    await store.rotate();
    await keyring.refresh();
    assert.notEqual(keyring.signingKey().kid, oldKey.kid);

    await t.step("right after the rotation", async () => {
      const claims = await verifyToken(token, (kid) => keyring.resolve(kid), { now: nowS + 10 });
      assert.equal(claims.kid, oldKey.kid);
    });
    await t.step("after the window the key is gone (and the token long expired)", async () => {
      clock.advance(PUBLISH_WINDOW_MS);
      await keyring.refresh();
      assert.equal(await keyring.resolve(oldKey.kid), undefined);
    });
  } finally {
    kv.close();
  }
});
