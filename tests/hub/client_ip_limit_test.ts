import assert from "node:assert/strict";
import { clientIpWindow, DEFAULT_CLIENT_IP_RATE_LIMIT } from "@/lib/hub/client_ip_limit.ts";
import { MintRateLimiter } from "@/lib/hub/rate_limit.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";
import { createKeyFixture, mint, startTestServer, type TestServer } from "../_helpers/server.ts";

/** Mints in the browser flow as a client at `ip` behind the test's trusted proxy (loopback). */
async function mintFrom(
  server: TestServer,
  f: { keyId: string; project: string; origin: string },
  ip?: string,
) {
  const headers: Record<string, string> = { origin: f.origin };
  if (ip) headers["x-forwarded-for"] = `6.6.6.6, ${ip}`;
  const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, headers);
  const body = await res.json();
  return { status: res.status, body, headers: res.headers };
}

for (const redis of [true, false]) {
  Deno.test(`client ip limit - browser-flow mints are limited per client address (${redis ? "Redis" : "in process"})`, async (t) => {
    const server = await startTestServer({ redis, env: { TRUSTED_PROXIES: "loopback" } });
    try {
      const f = await createKeyFixture(server.deps.kv, {
        rateLimit: { points: 6, durationSeconds: 60 },
        clientIpRateLimit: { points: 2, durationSeconds: 60 },
      });

      await t.step("a client past its limit gets 429 rate_limited, scope client_ip", async () => {
        for (let i = 0; i < 2; i++) {
          const ok = await mintFrom(server, f, "203.0.113.9");
          assert.equal(ok.status, 200, JSON.stringify(ok.body));
          assert.equal(
            ok.headers.get("ratelimit-policy"),
            '"mint";q=6;w=60, "mint-ip";q=2;w=60',
          );
          assert.match(
            ok.headers.get("ratelimit") ?? "",
            new RegExp(`^"mint";r=${5 - i};t=\\d+, "mint-ip";r=${1 - i};t=\\d+$`),
          );
        }
        const refused = await mintFrom(server, f, "203.0.113.9");
        assert.equal(refused.status, 429);
        assert.equal(refused.body.code, "rate_limited");
        assert.equal(refused.body.scope, "client_ip");
        assert.match(refused.body.detail, /2 tokens per 60 s for one client address/);
        const retry = Number(refused.headers.get("retry-after"));
        assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
        assert.equal(refused.headers.get("ratelimit-policy"), '"mint-ip";q=2;w=60');
        assert.match(refused.headers.get("ratelimit") ?? "", /^"mint-ip";r=0;t=\d+$/);
        assert.equal(
          refused.headers.get("access-control-allow-origin"),
          f.origin,
          "the page can read why",
        );
      });

      await t.step(
        "refused clients spend nothing of the key's limit; others still mint",
        async () => {
          for (let i = 0; i < 5; i++) {
            const again = await mintFrom(server, f, "203.0.113.9");
            assert.equal(again.status, 429);
          }
          // The key has 6 a minute and 2 went to the first client: 4 remain for everyone else.
          const others = [];
          for (const ip of ["198.51.100.1", "198.51.100.1", "198.51.100.2", "2001:db8:1:2a00::1"]) {
            others.push((await mintFrom(server, f, ip)).status);
          }
          assert.deepEqual(others, [200, 200, 200, 200]);
          const keyLimited = await mintFrom(server, f, "192.0.2.50");
          assert.equal(keyLimited.status, 429);
          assert.equal(keyLimited.body.scope, "key", "now the key's own limit is spent");
        },
      );
    } finally {
      await server.close();
    }
  });
}

Deno.test("client ip limit - an IPv6 /56 is one client; XFF is ignored without TRUSTED_PROXIES", async (t) => {
  const trusting = await startTestServer({ env: { TRUSTED_PROXIES: "127.0.0.1" } });
  const direct = await startTestServer();
  try {
    await t.step("two addresses in one /56 share a limit", async () => {
      const f = await createKeyFixture(trusting.deps.kv, {
        clientIpRateLimit: { points: 1, durationSeconds: 60 },
      });
      assert.equal((await mintFrom(trusting, f, "2001:db8:7:ab01::1")).status, 200);
      assert.equal((await mintFrom(trusting, f, "2001:db8:7:abff::2")).status, 429);
      assert.equal((await mintFrom(trusting, f, "2001:db8:7:ac00::1")).status, 200, "next /56");
    });
    await t.step(
      "a forged X-Forwarded-For buys no fresh limit from an untrusted peer",
      async () => {
        const f = await createKeyFixture(direct.deps.kv, {
          clientIpRateLimit: { points: 1, durationSeconds: 60 },
        });
        assert.equal((await mintFrom(direct, f, "198.51.100.1")).status, 200);
        const forged = await mintFrom(direct, f, "198.51.100.2");
        assert.equal(forged.status, 429, "both came from 127.0.0.1");
        assert.equal(forged.body.scope, "client_ip");
      },
    );
  } finally {
    await direct.close();
    await trusting.close();
  }
});

Deno.test("client ip limit - the server flow is not limited per address", async () => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv, {
      clientIpRateLimit: { points: 1, durationSeconds: 60 },
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const res = await mint(server.url, { projectId: f.project, origin: f.origin }, {
        authorization: `Bearer ${f.key}`,
      });
      statuses.push(res.status);
      assert.equal(res.headers.get("ratelimit-policy"), '"mint";q=600;w=60', "no mint-ip item");
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 200]);
  } finally {
    await server.close();
  }
});

Deno.test("client ip limit - the hosted configurator's mint is limited per address too", async () => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv, {
      clientIpRateLimit: { points: 1, durationSeconds: 60 },
    });
    const hosted = () =>
      fetch(`${server.url}/configurator/${f.project}/session-token`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify({ keyId: f.keyId, projectId: f.project, parentOrigin: f.origin }),
      });
    const first = await hosted();
    assert.equal(first.status, 200, await first.clone().text());
    await first.body?.cancel();
    const second = await hosted();
    const body = await second.json();
    assert.equal(second.status, 429);
    assert.equal(body.scope, "client_ip");
  } finally {
    await server.close();
  }
});

Deno.test("client ip limit - new keys and records older than the setting use the default policy", async () => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv);
    const record = await getSdkKey(server.deps.kv, f.keyId);
    assert.deepEqual(record!.clientIpRateLimit, DEFAULT_CLIENT_IP_RATE_LIMIT);
    // A record written before the field existed: the mint applies the default.
    const { clientIpRateLimit: _, ...old } = record!;
    await server.deps.kv.set(["sdk_keys", f.keyId], old);
    const res = await mintFrom(server, f);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("ratelimit-policy") ?? "", /"mint-ip";q=60;w=60$/);
  } finally {
    await server.close();
  }
});

for (const target of REDIS_TARGETS) {
  Deno.test(`client ip limit - limiter counts per key and network in Redis (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const limiter = new MintRateLimiter({ redis, prefix });
      const policy = { points: 2, durationSeconds: 60 };
      const spend = async (key: string, ip: string) =>
        (await limiter.consumeAll(key, [clientIpWindow(ip, policy)]))[0].allowed;
      assert.deepEqual(
        [
          await spend("ka", "203.0.113.9"),
          await spend("ka", "203.0.113.9"),
          await spend("ka", "203.0.113.9"),
          await spend("kb", "203.0.113.9"),
          await spend("ka", "203.0.113.10"),
        ],
        [true, true, false, true, true],
      );
      const keys = await admin.keys(`${prefix}*`);
      assert.equal(keys.length, 3, "three counters, in Redis");
      assert.ok(keys.every((k) => k.startsWith(`${prefix}ip:rl:mint:2:60`)), keys.join(" "));
    });
  });
}

for (const target of REDIS_TARGETS) {
  Deno.test(`client ip limit - one call spends the client's window, then the key's, and stops at a refusal (${target.name})`, async () => {
    await target.run(async (redis, prefix, admin) => {
      const limiter = new MintRateLimiter({ redis, prefix });
      const key = { policy: { points: 3, durationSeconds: 60 } };
      const client = (ip: string) => clientIpWindow(ip, { points: 2, durationSeconds: 60 });
      const spend = (ip: string) => limiter.consumeAll("kc", [client(ip), key]);
      const [ip1, key1] = await spend("198.51.100.1");
      assert.deepEqual([ip1.allowed, ip1.remaining, key1.allowed, key1.remaining], [
        true,
        1,
        true,
        2,
      ]);
      await spend("198.51.100.1");
      // The client's third is refused by its own window: the key's is not reached.
      const refused = await spend("198.51.100.1");
      assert.equal(refused.length, 1);
      assert.equal(refused[0].allowed, false);
      assert.ok(refused[0].resetSeconds >= 59 && refused[0].resetSeconds <= 60);
      // Another client spends the key's third point, and a fourth client finds the key spent.
      assert.deepEqual((await spend("198.51.100.2")).map((r) => r.allowed), [true, true]);
      const keySpent = await spend("198.51.100.3");
      assert.deepEqual(keySpent.map((r) => [r.allowed, r.remaining]), [[true, 1], [false, 0]]);
      const keys = await admin.keys(`${prefix}*`);
      assert.equal(keys.length, 4, keys.join(" ")); // three client windows and the key's
    });
  });
}

Deno.test("client ip limit - without Redis the same windows count in process", async () => {
  let now = 1_000_000;
  const limiter = new MintRateLimiter({ prefix: "p:", clock: () => now });
  const spend = () =>
    limiter.consumeAll("km", [
      clientIpWindow("192.0.2.7", { points: 1, durationSeconds: 10 }),
      { policy: { points: 5, durationSeconds: 60 } },
    ]);
  assert.deepEqual((await spend()).map((r) => r.allowed), [true, true]);
  const refused = await spend();
  assert.deepEqual(refused.map((r) => [r.allowed, r.resetSeconds]), [[false, 10]]);
  now += 10_000; // the client's window ends; the key's has spent one point of five
  assert.deepEqual((await spend()).map((r) => [r.allowed, r.remaining]), [[true, 0], [true, 3]]);
});
