/**
 * Operations: health, readiness, metrics, request logs and problems. Readiness reports Redis, so
 * those tests run on servers with a real Redis; the rest answer in memory (tests/_helpers/app.ts).
 */
import assert from "node:assert/strict";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import { createTestApp } from "../_helpers/app.ts";
import { createKeyFixture, mint, rid, startTestServer } from "../_helpers/server.ts";

Deno.test("ops - healthz and readyz report KV and Redis", async () => {
  const server = await startTestServer();
  try {
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok", role: "all" });
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: "ok", checks: { kv: "ok", redis: "ok" } });
  } finally {
    await server.close();
  }
});

Deno.test("ops - readyz answers 503 while Redis is down and mints keep working", async () => {
  // A real, private redis-server that the test can stop (stalls: tests/redis/redis_stall_test.ts).
  const redis = await PrivateRedis.start();
  const server = await startTestServer({ env: { REDIS_URL: redis.url } });
  try {
    const f = await createKeyFixture(server.deps.kv);
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    await redis.stop();
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal((await ready.json()).checks.redis, "down");
    // Rate limits fall back to the in-process insurance limiter: minting goes on.
    const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  } finally {
    // Cleanup deletes the test prefix on the private server, so it must be running.
    if (!redis.running) await redis.restart();
    await server.close();
    await redis.stop();
  }
});

Deno.test("ops - metrics count mints by outcome and request latency by route", async () => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv);
    await (await app.mint({ keyId: f.keyId, projectId: f.project }, { origin: f.origin }))
      .body?.cancel();
    await (await app.mint({ keyId: f.keyId, projectId: f.project }, {
      origin: "https://x.example",
    })).body
      ?.cancel();
    const res = await app.request("/metrics");
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^hub_mints_total\{flow="browser",outcome="ok"\} 1$/m);
    assert.match(text, /^hub_mints_total\{flow="browser",outcome="origin_not_allowed"\} 1$/m);
    assert.match(text, /^# TYPE http_request_duration_seconds histogram$/m);
    assert.match(
      text,
      /^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/sdk\/session-tokens",status="200"\} 1$/m,
    );
  } finally {
    await app.close();
  }
});

Deno.test("ops - request logs are JSON with a request id and never a secret or a whole token", async () => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv);
    const requestId = `test-${rid(8)}`;
    const res = await app.mint({ projectId: f.project, origin: f.origin }, {
      authorization: `Bearer ${f.key}`,
      "x-request-id": requestId,
    });
    const { token } = await res.json();
    assert.equal(res.headers.get("x-request-id"), requestId);
    // A failing request with the secret in the body must not leak either.
    await (await app.mint({ projectId: f.project, origin: f.key }, {
      authorization: `Bearer ${f.key}`,
    })).body
      ?.cancel();
    // Something that tries to log a token or key gets it redacted.
    app.deps.log.info("careless", { note: `token ${token} key ${f.key}` });
    const lines = app.logs.map((l) => JSON.parse(l));
    const request = lines.find((l) => l.msg === "request" && l.requestId === requestId);
    assert.ok(request, "a request line carries the request id");
    assert.equal(request.status, 200);
    assert.equal(request.route, "/api/v1/sdk/session-tokens");
    const secretPart = f.key.slice(f.key.lastIndexOf("_") + 1);
    const signature = token.split(".")[2];
    for (const line of app.logs) {
      assert.ok(!line.includes(secretPart), `secret in log: ${line}`);
      assert.ok(!line.includes(signature), `token in log: ${line}`);
    }
  } finally {
    await app.close();
  }
});

Deno.test("ops - unknown paths and problem types answer problems", async () => {
  const app = await createTestApp();
  try {
    const res = await app.request("/no/such/thing");
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    const body = await res.json();
    assert.equal(body.code, "not_found");
    assert.match(body.instance, /^urn:request:/);
    const type = await app.request("/problems/origin_not_allowed");
    assert.equal(type.status, 200);
    assert.equal((await type.json()).status, 403);
  } finally {
    await app.close();
  }
});
