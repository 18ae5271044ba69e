import assert from "node:assert/strict";
import { DEFAULT_JWKS_COOLDOWN_MS, type Jwks, RemoteKeySet, toJwks } from "../../lib/token/jwks.ts";
import { signToken } from "../../lib/token/sign.ts";
import { verifyToken } from "../../lib/token/verify.ts";
import { newTestKey, NOW, type TestKey, validClaims } from "./token_test_utils.ts";

function manualClock(start = 1_750_000_000_000) {
  let now = start;
  const clock = () => now;
  return Object.assign(clock, { advance: (ms: number) => (now += ms) });
}

async function publicJwkOf(key: TestKey): Promise<JsonWebKey> {
  return await crypto.subtle.exportKey("jwk", key.publicKey);
}

async function jwksOf(...keys: TestKey[]): Promise<Jwks> {
  const records = await Promise.all(
    keys.map(async (k) => ({ kid: k.kid, publicJwk: await publicJwkOf(k) })),
  );
  return toJwks(records);
}

/** A real local JWKS server whose document, status and latency tests can change. */
function jwksServer(initial: unknown) {
  const state = { body: JSON.stringify(initial), status: 200, delayMs: 0, fetches: 0 };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async () => {
    state.fetches++;
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    return new Response(state.body, {
      status: state.status,
      headers: { "content-type": "application/jwk-set+json" },
    });
  });
  return {
    state,
    url: `http://127.0.0.1:${server.addr.port}/.well-known/jwks.json`,
    setDocument: (doc: unknown) => (state.body = JSON.stringify(doc)),
    close: async () => {
      await server.shutdown();
    },
  };
}

Deno.test("jwks - toJwks publishes only public members", async () => {
  const key = await newTestKey();
  const privateJwk = await crypto.subtle.exportKey("jwk", key.privateKey);
  const jwks = toJwks([{ kid: key.kid, publicJwk: privateJwk }]);
  assert.deepEqual(jwks.keys, [{
    kty: "OKP",
    crv: "Ed25519",
    x: privateJwk.x,
    kid: key.kid,
    use: "sig",
    alg: "EdDSA",
  }]);
  assert.throws(() => toJwks([{ kid: "rsa", publicJwk: { kty: "RSA" } }]), TypeError);
});

Deno.test("jwks - remote key set caches, refetches and survives the hub going down", async (t) => {
  const [a, b, c] = await Promise.all([newTestKey(), newTestKey(), newTestKey()]);
  const server = jwksServer(await jwksOf(a));
  const clock = manualClock();
  const errors: unknown[] = [];
  const keys = new RemoteKeySet(server.url, {
    clock,
    maxAgeMs: 600_000,
    cooldownMs: 30_000,
    onError: (err) => errors.push(err),
  });
  try {
    await t.step("nothing is fetched before the first resolve", () => {
      assert.equal(server.state.fetches, 0);
    });
    await t.step("a known kid is served from cache", async () => {
      const first = await keys.resolve(a.kid);
      assert.ok(first);
      assert.equal(await keys.resolve(a.kid), first);
      assert.equal(await keys.resolve(a.kid), first);
      assert.equal(server.state.fetches, 1);
    });
    await t.step("an unknown kid refetches once, then the cooldown holds", async () => {
      server.setDocument(await jwksOf(a, b));
      clock.advance(30_000);
      assert.ok(await keys.resolve(b.kid));
      assert.equal(server.state.fetches, 2);
      server.setDocument(await jwksOf(a, b, c));
      clock.advance(29_999);
      assert.equal(await keys.resolve(c.kid), undefined);
      assert.equal(await keys.resolve("forged"), undefined);
      assert.equal(server.state.fetches, 2);
      clock.advance(1);
      assert.ok(await keys.resolve(c.kid));
      assert.equal(server.state.fetches, 3);
    });
    await t.step("concurrent misses share one fetch", async () => {
      const d = await newTestKey();
      server.setDocument(await jwksOf(a, b, c, d));
      server.state.delayMs = 50;
      clock.advance(30_000);
      const found = await Promise.all(Array.from({ length: 8 }, () => keys.resolve(d.kid)));
      assert.equal(new Set(found).size, 1);
      assert.ok(found[0]);
      assert.equal(server.state.fetches, 4);
      server.state.delayMs = 0;
    });
    await t.step("a stale set is refetched after max age", async () => {
      clock.advance(600_000);
      assert.ok(await keys.resolve(a.kid));
      assert.equal(server.state.fetches, 5);
      assert.ok(await keys.resolve(a.kid));
      assert.equal(server.state.fetches, 5);
    });
    await t.step("an HTTP error keeps the cached set", async () => {
      server.state.status = 503;
      clock.advance(600_000);
      assert.ok(await keys.resolve(a.kid));
      assert.equal(server.state.fetches, 6);
      assert.equal(errors.length, 1);
      server.state.status = 200;
    });
    await t.step(
      "the hub down keeps serving the cached set, retrying once per cooldown",
      async () => {
        await server.close();
        clock.advance(600_000);
        const errorsBefore = errors.length;
        assert.ok(await keys.resolve(a.kid));
        assert.ok(await keys.resolve(b.kid));
        assert.equal(await keys.resolve("forged"), undefined);
        assert.equal(errors.length, errorsBefore + 1, "one attempt within the cooldown");
        clock.advance(30_000);
        assert.ok(await keys.resolve(a.kid));
        assert.equal(errors.length, errorsBefore + 2);
      },
    );
  } finally {
    await server.close().catch(() => {});
  }
});

Deno.test("jwks - remote key set ignores unusable keys and bad documents", async (t) => {
  const [good, dup, other] = await Promise.all([newTestKey(), newTestKey(), newTestKey()]);
  const goodJwk = (await jwksOf(good)).keys[0];
  const dupJwk = (await jwksOf(dup)).keys[0];
  const privateOther = await crypto.subtle.exportKey("jwk", other.privateKey);
  const server = jwksServer({
    keys: [
      goodJwk,
      "not an object",
      { ...goodJwk, kid: "no-kty", kty: undefined },
      { ...goodJwk, kid: "rsa", kty: "RSA" },
      { ...goodJwk, kid: "x448", crv: "Ed448" },
      { ...goodJwk, kid: undefined },
      { ...goodJwk, kid: "" },
      { ...goodJwk, kid: "enc", use: "enc" },
      { ...goodJwk, kid: "rs256", alg: "RS256" },
      { ...goodJwk, kid: "short-x", x: goodJwk.x.slice(0, 42) },
      { ...goodJwk, kid: "padded-x", x: goodJwk.x + "=" },
      { ...privateOther, kid: "private", use: "sig" },
      { ...dupJwk, kid: "twice" },
      { ...goodJwk, kid: "twice" },
      { ...dupJwk, kid: "no-use-no-alg", use: undefined, alg: undefined },
    ],
  });
  const clock = manualClock();
  const errors: unknown[] = [];
  const keys = new RemoteKeySet(server.url, { clock, onError: (e) => errors.push(e) });
  try {
    await t.step("only well-formed Ed25519 signing keys with a unique kid are kept", async () => {
      assert.ok(await keys.resolve(good.kid));
      assert.deepEqual(keys.kids().sort(), [good.kid, "no-use-no-alg"].sort());
      assert.deepEqual(errors, []);
    });
    for (
      const [name, body] of [
        ["not JSON", "<html>"],
        ["no keys member", JSON.stringify({ data: [] })],
        ["keys not an array", JSON.stringify({ keys: {} })],
        ["too large", JSON.stringify({ keys: [], pad: "x".repeat(70_000) })],
      ]
    ) {
      await t.step(`${name}: the cached set stays`, async () => {
        server.state.body = body;
        clock.advance(DEFAULT_JWKS_COOLDOWN_MS);
        const errorsBefore = errors.length;
        assert.equal(await keys.resolve("unknown"), undefined);
        assert.equal(errors.length, errorsBefore + 1);
        assert.ok(await keys.resolve(good.kid));
      });
    }
  } finally {
    await server.close();
  }
});

Deno.test("jwks - a render node verifies hub tokens with only the published keys", async () => {
  const key = await newTestKey();
  const server = jwksServer(await jwksOf(key));
  try {
    const keys = new RemoteKeySet(server.url);
    const claims = validClaims(key.kid);
    const token = signToken(claims, key);
    assert.deepEqual(await verifyToken(token, (kid) => keys.resolve(kid), { now: NOW }), claims);
  } finally {
    await server.close();
  }
});

Deno.test("jwks - a slow hub is cut off by the timeout", async () => {
  const server = jwksServer({ keys: [] });
  server.state.delayMs = 300;
  const errors: unknown[] = [];
  try {
    const keys = new RemoteKeySet(server.url, { timeoutMs: 50, onError: (e) => errors.push(e) });
    const started = performance.now();
    assert.equal(await keys.resolve("any"), undefined);
    assert.ok(performance.now() - started < 250);
    assert.equal(errors.length, 1);
  } finally {
    await server.close();
  }
});

Deno.test("jwks - bad options are rejected early", () => {
  assert.throws(() => new RemoteKeySet("not a url"), TypeError);
  assert.throws(() => new RemoteKeySet("file:///etc/jwks.json"), TypeError);
  assert.throws(() => new RemoteKeySet("https://hub.example/jwks", { maxAgeMs: -1 }), TypeError);
  assert.throws(
    () => new RemoteKeySet("https://hub.example/jwks", { cooldownMs: Number.NaN }),
    TypeError,
  );
});
