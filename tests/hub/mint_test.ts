/**
 * The mint endpoint. Its answers are checked in memory (tests/_helpers/app.ts: no Redis, the
 * in-process rate limiters); the RateLimit headers of the Redis limiter and a limit shared by two
 * hub instances are checked on servers with the real Redis.
 */
import assert from "node:assert/strict";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { updateSdkKey } from "@/lib/store/sdk_keys.ts";
import { verifyToken } from "@/lib/token/verify.ts";
import type { AppDeps } from "@/lib/app/context.ts";
import { createTestApp } from "../_helpers/app.ts";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";

async function problem(res: Response, status: number, code: string) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(body.code, code, JSON.stringify(body));
  assert.equal(body.status, status);
  assert.equal(body.type, `/problems/${code}`);
  assert.ok(body.title && body.detail, "a problem has a title and a detail");
  return body;
}

async function claimsOf(app: { deps: AppDeps }, token: string) {
  return await verifyToken(token, (kid) => app.deps.hub!.keyring.resolve(kid), {
    now: Math.floor(Date.now() / 1000),
  });
}

Deno.test("mint - browser flow mints a token bound to the Origin header", async () => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv, { budget: 25 });
    const res = await app.mint({ keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), f.origin);
    assert.match(res.headers.get("vary") ?? "", /Origin/);
    assert.equal(res.headers.get("cache-control"), "no-store");
    // The key's limit, then the browser flow's per-client-address one (client_ip_limit.ts).
    assert.match(res.headers.get("ratelimit") ?? "", /^"mint";r=\d+;t=\d+, "mint-ip";r=\d+;t=\d+$/);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ["expiresAt", "mode", "token"]);
    assert.equal(body.mode, "publishable");
    const claims = await claimsOf(app, body.token);
    assert.equal(claims.origin, f.origin);
    assert.equal(claims.project, f.project);
    assert.equal(claims.partner, f.partnerId);
    assert.equal(claims.aud, "kernel-api");
    assert.equal(claims.iss, "hub");
    assert.equal(claims.budget, 25);
    assert.equal(claims.exp, body.expiresAt);
    assert.equal(claims.exp - claims.iat, 30 * 60, "default TTL is 30 minutes");
    assert.match(claims.jti, /^[0-9a-f]{32}$/, "jti is 128 random bits");
    assert.match(claims.sub, /^anon_[0-9a-f]{24}$/, "anonymous sub when no endUserId");
    assert.equal(claims.kid, app.deps.hub!.keyring.signingKey().kid);
  } finally {
    await app.close();
  }
});

Deno.test("mint - server flow mints with the secret for the body origin", async () => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv);
    const res = await app.mint({
      projectId: f.project,
      origin: f.origin,
      endUserId: "user-42",
      ttlSeconds: 600,
    }, { authorization: `Bearer ${f.key}` });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), null, "no Origin, no CORS echo");
    const body = await res.json();
    assert.equal(body.mode, "secret");
    const claims = await claimsOf(app, body.token);
    assert.equal(claims.sub, "user-42");
    assert.equal(claims.origin, f.origin);
    assert.equal(claims.exp - claims.iat, 600);
    assert.equal(claims.budget, null, "no budget on the key means unlimited");
  } finally {
    await app.close();
  }
});

Deno.test("mint - every error row of spec section 7 and the bad-input cases", async (t) => {
  const app = await createTestApp();
  const kv = app.deps.kv;
  try {
    const f = await createKeyFixture(kv, { maxTtlSeconds: 3600 });
    const other = await createKeyFixture(kv);
    const revoked = await createKeyFixture(kv);
    await revokeSdkKey(kv, revoked.keyId);
    const browser = (body: Record<string, unknown>, origin: string | null = f.origin) =>
      app.mint({ keyId: f.keyId, projectId: f.project, ...body }, origin ? { origin } : {});
    const secret = (body: Record<string, unknown>, key = f.key) =>
      app.mint({ projectId: f.project, origin: f.origin, ...body }, {
        authorization: `Bearer ${key}`,
      });
    const swapped = f.key.slice(0, f.key.lastIndexOf("_") + 1) +
      other.key.slice(other.key.lastIndexOf("_") + 1);

    const cases: Array<[string, () => Promise<Response>, number, string]> = [
      ["400 browser flow without Origin", () => browser({}, null), 400, "origin_required"],
      [
        "401 neither mode",
        () => app.mint({ projectId: f.project }, { origin: f.origin }),
        401,
        "unauthenticated",
      ],
      ["401 empty body, no auth", () => app.mint({}), 401, "unauthenticated"],
      [
        "401 another key's secret (checksum fails)",
        () => secret({}, swapped),
        401,
        "invalid_key_format",
      ],
      ["401 malformed key", () => secret({}, "sdk_nope"), 401, "invalid_key_format"],
      [
        "401 Authorization not Bearer",
        () =>
          app.mint({ projectId: f.project, origin: f.origin }, {
            authorization: "Basic Zm9vOmJhcg==",
          }),
        401,
        "unauthenticated",
      ],
      [
        "401 revoked key (server flow)",
        () => secret({ projectId: revoked.project, origin: revoked.origin }, revoked.key),
        401,
        "key_revoked",
      ],
      [
        "401 revoked key (browser flow)",
        () =>
          app.mint({ keyId: revoked.keyId, projectId: revoked.project }, {
            origin: revoked.origin,
          }),
        401,
        "key_revoked",
      ],
      [
        "401 unknown keyId",
        () =>
          app.mint({ keyId: "k" + "a".repeat(20), projectId: f.project }, {
            origin: f.origin,
          }),
        401,
        "unknown_key",
      ],
      [
        "403 origin not allowed (browser)",
        () => browser({}, "https://evil.example"),
        403,
        "origin_not_allowed",
      ],
      [
        "403 origin not allowed (server)",
        () => secret({ origin: "https://evil.example" }),
        403,
        "origin_not_allowed",
      ],
      [
        "403 origin with a trailing slash",
        () => secret({ origin: f.origin + "/" }),
        403,
        "origin_not_allowed",
      ],
      [
        "403 project not allowed (browser)",
        () => browser({ projectId: other.project }),
        403,
        "project_not_allowed",
      ],
      [
        "403 project not allowed (server)",
        () => secret({ projectId: other.project }),
        403,
        "project_not_allowed",
      ],
      [
        "403 another partner's key from this origin",
        () => app.mint({ keyId: other.keyId, projectId: other.project }, { origin: f.origin }),
        403,
        "origin_not_allowed",
      ],
      [
        "422 ttlSeconds below the minimum",
        () => secret({ ttlSeconds: 59 }),
        422,
        "ttl_out_of_bounds",
      ],
      [
        "422 ttlSeconds above the key's max",
        () => secret({ ttlSeconds: 3601 }),
        422,
        "ttl_out_of_bounds",
      ],
      [
        "422 ttlSeconds not an integer",
        () => secret({ ttlSeconds: 90.5 }),
        422,
        "validation_failed",
      ],
      ["422 ttlSeconds a string", () => secret({ ttlSeconds: "600" }), 422, "validation_failed"],
      [
        "422 body origin disagrees with Origin",
        () => browser({ origin: "https://other.example" }),
        422,
        "origin_conflict",
      ],
      [
        "422 server flow without origin",
        () => app.mint({ projectId: f.project }, { authorization: `Bearer ${f.key}` }),
        422,
        "validation_failed",
      ],
      ["422 unknown member", () => browser({ projectKey: "x" }), 422, "validation_failed"],
      [
        "422 projectId of the wrong type",
        () => browser({ projectId: 7 }),
        422,
        "validation_failed",
      ],
      [
        "400 malformed JSON",
        () => app.mint("{not json", { origin: f.origin }),
        400,
        "invalid_body",
      ],
      [
        "401 a JSON array body (no keyId)",
        () => app.mint("[1,2]", { origin: f.origin }),
        401,
        "unauthenticated",
      ],
      [
        "400 a body that is not UTF-8",
        () =>
          app.request("/api/v1/sdk/session-tokens", {
            method: "POST",
            headers: { origin: f.origin, "content-type": "application/json" },
            // {"keyId":"<0xFF>"}: the lenient decoder would read U+FFFD; the body is refused.
            body: new Uint8Array([...new TextEncoder().encode('{"keyId":"'), 0xff, 0x22, 0x7d]),
          }),
        400,
        "invalid_body",
      ],
      [
        "415 not JSON",
        () =>
          app.request("/api/v1/sdk/session-tokens", {
            method: "POST",
            headers: { origin: f.origin, "content-type": "text/plain" },
            body: "x",
          }),
        415,
        "unsupported_media_type",
      ],
      ["413 huge body", () => browser({ endUserId: "x".repeat(20_000) }), 413, "body_too_large"],
      [
        "405 GET",
        () => app.request("/api/v1/sdk/session-tokens"),
        405,
        "method_not_allowed",
      ],
    ];
    for (const [name, send, status, code] of cases) {
      await t.step(name, async () => {
        await problem(await send(), status, code);
      });
    }
    await t.step(
      "401 a well-formed key whose secret does not match the stored digest",
      async () => {
        // The stored digest is of another secret (as after a roll): the checksum passes, the
        // constant-time digest comparison does not.
        const g = await createKeyFixture(kv);
        const { digestSecret } = await import("@/lib/hub/partner_key.ts");
        const otherDigest = await digestSecret(g.keyId, "a".repeat(39));
        await updateSdkKey(
          kv,
          g.keyId,
          (r) => ({ ...r, secrets: [{ ...r.secrets[0], digest: otherDigest }] }),
        );
        const res = await app.mint({ projectId: g.project, origin: g.origin }, {
          authorization: `Bearer ${g.key}`,
        });
        await problem(res, 401, "invalid_credentials");
      },
    );
    await t.step("problems from an allowed origin are readable cross-origin", async () => {
      const res = await browser({ projectId: other.project });
      assert.equal(res.headers.get("access-control-allow-origin"), f.origin);
      await res.body?.cancel();
    });
    await t.step("problems from an unknown origin carry no allow-origin", async () => {
      const res = await browser({}, "https://evil.example");
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      await res.body?.cancel();
    });
    await t.step("nothing was minted by the failures and no secret reached the log", () => {
      const mints = app.deps.metrics.mints;
      assert.equal(
        mints.get({ flow: "browser", outcome: "ok" }) +
          mints.get({ flow: "server", outcome: "ok" }),
        0,
      );
      const secretPart = f.key.slice(f.key.lastIndexOf("_") + 1);
      assert.ok(app.logs.length > 0);
      assert.ok(!app.logs.some((l) => l.includes(secretPart)), "the secret is never logged");
    });
  } finally {
    await app.close();
  }
});

Deno.test("mint - per-key rate limit answers 429 with Retry-After and RateLimit headers", async () => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv, {
      rateLimit: { points: 2, durationSeconds: 60 },
    });
    for (let i = 0; i < 2; i++) {
      const ok = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
        origin: f.origin,
      });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    }
    const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    const body = await problem(res, 429, "rate_limited");
    assert.match(body.detail, /2 tokens per 60 s/);
    const retry = Number(res.headers.get("retry-after"));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    assert.equal(body.scope, "key");
    assert.equal(res.headers.get("ratelimit-policy"), '"mint";q=2;w=60, "mint-ip";q=60;w=60');
    assert.match(res.headers.get("ratelimit") ?? "", /^"mint";r=0;t=\d+, "mint-ip";r=57;t=\d+$/);
    const g = await createKeyFixture(server.deps.kv);
    const fine = await mint(server.url, { keyId: g.keyId, projectId: g.project }, {
      origin: g.origin,
    });
    assert.equal(fine.status, 200, "limits are per keyId");
    await fine.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("mint - the rate limit is shared through Redis by two hub instances", async () => {
  const a = await startTestServer();
  const b = await startTestServer({ env: { REDIS_PREFIX: a.config.redisPrefix } });
  try {
    const f = await createKeyFixture(a.deps.kv, { rateLimit: { points: 3, durationSeconds: 60 } });
    // Each test server has its own :memory: KV; copy the records as a shared KV would hold them.
    for await (const e of a.deps.kv.list({ prefix: [] })) await b.deps.kv.set(e.key, e.value);
    const statuses: number[] = [];
    for (const s of [a, b, a, b]) {
      const res = await mint(s.url, { keyId: f.keyId, projectId: f.project }, { origin: f.origin });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  } finally {
    await b.close();
    await a.close();
  }
});

Deno.test("mint - CORS preflight echoes only allowed origins and never allows Authorization", async (t) => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv);
    const preflight = (origin: string, headers = "content-type") =>
      app.request("/api/v1/sdk/session-tokens", {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": headers,
        },
      });
    await t.step("allowed origin", async () => {
      const res = await preflight(f.origin);
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), f.origin);
      assert.match(res.headers.get("vary") ?? "", /Origin/);
      assert.equal(res.headers.get("access-control-allow-methods"), "POST");
      assert.equal(res.headers.get("access-control-allow-headers"), "content-type");
      assert.equal(res.headers.get("access-control-max-age"), "600");
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
    });
    await t.step("other origin", async () => {
      const res = await preflight("https://evil.example");
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.match(res.headers.get("vary") ?? "", /Origin/);
    });
    await t.step("allowed origin asking to send Authorization", async () => {
      const res = await preflight(f.origin, "content-type, authorization");
      assert.equal(res.headers.get("access-control-allow-origin"), null);
    });
    await t.step("a revoked key's origin may read the refusal (key_revoked)", async () => {
      await revokeSdkKey(app.deps.kv, f.keyId);
      const pre = await preflight(f.origin);
      assert.equal(pre.headers.get("access-control-allow-origin"), f.origin);
      assert.equal(
        (await preflight(f.origin, "content-type, authorization")).headers.get(
          "access-control-allow-origin",
        ),
        null,
        "still never Authorization",
      );
      // Nothing minted with this key before, so no cached record hides the revocation.
      const res = await app.mint({ keyId: f.keyId, projectId: f.project }, {
        origin: f.origin,
      });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).code, "key_revoked");
      assert.equal(res.headers.get("access-control-allow-origin"), f.origin);
    });
    await t.step("an origin no key ever listed stays blocked after the revocation", async () => {
      const res = await app.mint({ keyId: f.keyId, projectId: f.project }, {
        origin: "https://evil.example",
      });
      assert.equal(res.status, 401);
      await res.body?.cancel();
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.equal(
        (await preflight("https://evil.example")).headers.get(
          "access-control-allow-origin",
        ),
        null,
      );
    });
  } finally {
    await app.close();
  }
});

Deno.test("mint - works without Redis on in-process equivalents", async () => {
  const app = await createTestApp();
  try {
    assert.ok(
      app.logs.some((l) => l.includes("REDIS_URL is unset")),
      "the fallback is announced",
    );
    const f = await createKeyFixture(app.deps.kv, {
      rateLimit: { points: 1, durationSeconds: 60 },
    });
    const ok = await app.mint({ keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    const limited = await app.mint({ keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    assert.equal(limited.status, 429);
    await limited.body?.cancel();
  } finally {
    await app.close();
  }
});

Deno.test("mint - hostile bodies and headers never produce a 500", async () => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv);
    const values: unknown[] = [
      null,
      true,
      0,
      -1,
      1e308,
      "",
      "x".repeat(300),
      [],
      {},
      [f.keyId],
      { a: { b: { c: [] } } },
      "\u0000",
      "sdk_",
      "sv1.a.b",
      Number.MAX_SAFE_INTEGER + 2,
      { __proto__: { keyId: f.keyId } },
    ];
    const members = [
      "keyId",
      "projectId",
      "origin",
      "endUserId",
      "ttlSeconds",
      "constructor",
      "__proto__",
    ];
    const auths = [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      `Bearer ${f.key} extra`,
      `bearer ${f.key}`,
      "Bearer sdk_k_x",
      f.key,
    ];
    const origins = [
      undefined,
      "",
      "null",
      f.origin + "/",
      f.origin.toUpperCase(),
      "https://a\u0000b",
    ];
    let n = 0;
    for (let i = 0; i < 300; i++) {
      const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
      const body: Record<string, unknown> = {};
      for (const m of members) {
        if (Math.random() < 0.5) body[m] = pick([...values, f.keyId, f.project, f.origin]);
      }
      const headers: Record<string, string> = {};
      const auth = pick(auths);
      if (auth !== undefined) headers.authorization = auth;
      const origin = pick(origins);
      if (origin !== undefined && !origin.includes("\u0000")) headers.origin = origin;
      const res = await app.mint(
        Math.random() < 0.1 ? JSON.stringify(pick(values)) : body,
        headers,
      );
      assert.ok(
        res.status < 500,
        `${res.status} for ${JSON.stringify({ body, headers })}: ${await res.clone().text()}`,
      );
      const type = res.headers.get("content-type");
      assert.ok(
        res.status === 200 ? type === "application/json" : type === "application/problem+json",
      );
      await res.body?.cancel();
      n++;
    }
    assert.equal(n, 300);
  } finally {
    await app.close();
  }
});
