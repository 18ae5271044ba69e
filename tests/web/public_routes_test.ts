/**
 * The public GETs of every deployment, answered in memory (tests/_helpers/app.ts): liveness and
 * readiness, the hub's JWKS, the OpenAPI document and the problem types, and which of them a
 * kernel serves. None of them needs a real part.
 */
import assert from "node:assert/strict";
import { ERROR_CODES } from "@/lib/http/error_codes.ts";
import { verifyToken } from "@/lib/token/verify.ts";
import { createTestApp } from "../_helpers/app.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";

Deno.test("public routes - healthz and readyz answer; without REDIS_URL readiness says in-process", async () => {
  const app = await createTestApp();
  try {
    const health = await app.request("/healthz");
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("cache-control"), "no-store");
    assert.deepEqual(await health.json(), { status: "ok", role: "all" });
    const ready = await app.request("/readyz");
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get("cache-control"), "no-store");
    assert.deepEqual(await ready.json(), {
      status: "ok",
      checks: { kv: "ok", redis: "in-process" },
    });
  } finally {
    await app.close();
  }
});

Deno.test("public routes - the JWKS publishes only public Ed25519 keys, and a minted token verifies with one", async () => {
  const app = await createTestApp();
  try {
    const res = await app.request("/.well-known/jwks.json");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("cache-control"), "public, max-age=300");
    const { keys } = await res.json() as { keys: Record<string, string>[] };
    const kid = app.deps.hub!.keyring.signingKey().kid;
    const current = keys.find((k) => k.kid === kid);
    assert.ok(current, "the signing key is published");
    for (const key of keys) {
      assert.deepEqual(Object.keys(key).sort(), ["alg", "crv", "kid", "kty", "use", "x"]);
      assert.deepEqual([key.kty, key.crv, key.use, key.alg], ["OKP", "Ed25519", "sig", "EdDSA"]);
      assert.match(key.x, /^[A-Za-z0-9_-]{43}$/, "32 bytes, base64url");
    }

    // What a kernel on another node does: verify with the published key alone.
    const f = await createKeyFixture(app.deps.kv);
    const minted = await app.mint({ keyId: f.keyId, projectId: f.project }, { origin: f.origin });
    assert.equal(minted.status, 200);
    const { token } = await minted.json();
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: current.kty, crv: current.crv, x: current.x },
      "Ed25519",
      false,
      ["verify"],
    );
    const claims = await verifyToken(token, (k) => (k === kid ? publicKey : undefined), {
      now: Math.floor(app.deps.clock() / 1000),
    });
    assert.equal(claims.origin, f.origin);
    assert.equal(claims.kid, kid);
  } finally {
    await app.close();
  }
});

Deno.test("public routes - /openapi.json names this deployment's hub and kernel URLs", async () => {
  const app = await createTestApp({
    env: { HUB_URL: "https://hub.example", KERNEL_URL: "https://render.example" },
  });
  try {
    const res = await app.request("/openapi.json");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(doc.servers, [{ url: "https://hub.example", description: "hub" }]);
    assert.deepEqual(doc.paths["/v1/kernels/{kernel}/render"].servers, [
      { url: "https://render.example", description: "kernel-api" },
    ]);
    assert.equal(doc.paths["/api/v1/sdk/session-tokens"].post.operationId, "mintSessionToken");
  } finally {
    await app.close();
  }
});

Deno.test("public routes - each problem type answers its status and title; unknown codes are 404", async (t) => {
  const app = await createTestApp();
  try {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      await t.step(code, async () => {
        const res = await app.request(`/problems/${code}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("cache-control"), "public, max-age=86400");
        assert.deepEqual(await res.json(), { code, status: info.status, title: info.title });
      });
    }
    await t.step("unknown code", async () => {
      const res = await app.request("/problems/no_such_code");
      assert.equal(res.status, 404);
      assert.equal(res.headers.get("content-type"), "application/problem+json");
      const body = await res.json();
      assert.equal(body.code, "not_found");
      assert.equal(body.type, "/problems/not_found");
    });
  } finally {
    await app.close();
  }
});

Deno.test("public routes - a kernel serves health and problems but neither the JWKS nor the mint", async () => {
  const app = await createTestApp({ env: { ROLE: "kernel" } });
  try {
    assert.equal(app.deps.hub, undefined, "a kernel holds no signing key");
    const health = await app.request("/healthz");
    assert.deepEqual(await health.json(), { status: "ok", role: "kernel" });
    const problem = await app.request("/problems/token_expired");
    assert.equal(problem.status, 200);
    await problem.body?.cancel();
    for (
      const [method, path] of [
        ["GET", "/.well-known/jwks.json"],
        ["POST", "/api/v1/sdk/session-tokens"],
      ]
    ) {
      const res = await app.request(path, { method });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal((await res.json()).code, "not_found");
    }
  } finally {
    await app.close();
  }
});
