import assert from "node:assert/strict";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { createKeyFixture, mint, startTestServer, type TestServer } from "../_helpers/server.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { TEST_REDIS_URL } from "../_helpers/redis.ts";
import { createClient } from "redis";

const RENDER = "/v1/kernels/manifold/render";

async function setup(server: TestServer, keyOverrides = {}) {
  const f = await createKeyFixture(server.deps.kv, keyOverrides);
  await publishFixture(server.deps.kv, f.partnerId, f.project);
  const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
    origin: f.origin,
  });
  assert.equal(res.status, 200);
  const { token } = await res.json();
  return { ...f, token };
}

function render(
  url: string,
  token: string | null,
  origin: string | null,
  body: unknown,
  path = RENDER,
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (origin) headers.origin = origin;
  return fetch(`${url}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function problem(res: Response, status: number, code: string) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code, JSON.stringify(body));
  return body;
}

Deno.test("render - a valid token renders meshes, then hits L1, and skips meshes the client holds", async () => {
  const server = await startTestServer();
  try {
    const s = await setup(server, { budget: 10 });
    const dag = await finishedDag("plate", { width: 100, holes: 3 });
    const res = await render(server.url, s.token, s.origin, { dag });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get("access-control-allow-origin"), s.origin);
    const first = await res.json();
    assert.equal(first.cache, "miss");
    assert.equal(first.kernel, "manifold");
    assert.equal(first.project, s.project);
    assert.equal(first.version, 1);
    assert.match(first.dagHash, /^[0-9a-f]{64}$/);
    assert.equal(first.budget.remaining, 9);
    assert.deepEqual(first.scene.parts.map((p: { name: string }) => p.name), ["Plate", "Feet"]);
    const feet = first.scene.parts[1];
    assert.equal(feet.translations.length, 12, "four feet are four instances of one mesh");
    assert.equal(Object.keys(first.meshes).length, 2);
    assert.ok(first.scene.triangles > 0 && first.scene.volume > 0);
    const [minX, , minZ] = first.scene.bbox.min;
    const [maxX] = first.scene.bbox.max;
    assert.ok(Math.abs(maxX - minX - 100) < 1e-6, "bbox spans the plate width");
    assert.ok(Math.abs(minZ + 3) < 1e-6, "feet hang 3 below the plate");

    const again = await (await render(server.url, s.token, s.origin, { dag, have: [feet.mesh] }))
      .json();
    assert.equal(again.cache, "l1");
    assert.equal(again.dagHash, first.dagHash);
    assert.deepEqual(again.omitted, [feet.mesh]);
    assert.deepEqual(Object.keys(again.meshes), [first.scene.parts[0].mesh]);
    assert.equal(again.budget.remaining, 8);

    // A new width changes the plate mesh; the feet's mesh is the same and can be reused.
    const wider = await (await render(server.url, s.token, s.origin, {
      dag: await finishedDag("plate", { width: 120, holes: 3 }),
      have: Object.keys(first.meshes),
    })).json();
    assert.equal(wider.cache, "miss");
    assert.notEqual(wider.scene.parts[0].mesh, first.scene.parts[0].mesh);
    assert.equal(wider.scene.parts[1].mesh, feet.mesh);
    assert.deepEqual(wider.omitted, [feet.mesh]);
  } finally {
    await server.close();
  }
});

Deno.test("render - each step of the pipeline answers its own problem", async (t) => {
  const server = await startTestServer();
  try {
    const s = await setup(server);
    const dag = await finishedDag("plate");
    await t.step("unknown kernel → 404", async () => {
      const res = await render(server.url, s.token, s.origin, { dag }, "/v1/kernels/cgal/render");
      await problem(res, 404, "unknown_kernel");
    });
    await t.step("body too large → 413, before the token is looked at", async () => {
      const res = await render(server.url, null, null, { dag, pad: "x".repeat(300_000) });
      await problem(res, 413, "body_too_large");
    });
    await t.step("no token → 401 invalid_token", async () => {
      const res = await render(server.url, null, s.origin, { dag });
      assert.equal((await problem(res, 401, "invalid_token")).reason, "missing");
    });
    await t.step("forged token → 401 invalid_token", async () => {
      const [h, p] = s.token.split(".").slice(0, 2);
      const forged = `${h}.${p}.${"A".repeat(86)}`;
      const res = await render(server.url, forged, s.origin, { dag });
      assert.equal((await problem(res, 401, "invalid_token")).reason, "bad_signature");
    });
    await t.step("missing Origin → 403 origin_mismatch", async () => {
      await problem(await render(server.url, s.token, null, { dag }), 403, "origin_mismatch");
    });
    await t.step("another origin → 403, not readable by that origin", async () => {
      const res = await render(server.url, s.token, "https://evil.example", { dag });
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      await problem(res, 403, "origin_mismatch");
    });
    await t.step("malformed JSON → 400", async () => {
      await problem(await render(server.url, s.token, s.origin, "{"), 400, "invalid_body");
    });
    await t.step("unknown member → 422 validation_failed", async () => {
      const res = await render(server.url, s.token, s.origin, { dag, extra: 1 });
      await problem(res, 422, "validation_failed");
    });
    await t.step(
      "a changed literal is not an instance of the template → 422 with a pointer",
      async () => {
        const bad = structuredClone(dag);
        // deno-lint-ignore no-explicit-any -- reaching into a node of a known fixture
        (bad.nodes.plate as any).size[1] = 31;
        const res = await render(server.url, s.token, s.origin, { dag: bad });
        const body = await problem(res, 422, "invalid_dag");
        assert.equal(body.reason, "not_an_instance");
        assert.match(body.pointer, /^\/nodes\/plate/);
      },
    );
    await t.step("a value out of range → 422 invalid_parameters with a pointer", async () => {
      const bad = structuredClone(dag);
      // deno-lint-ignore no-explicit-any -- reaching into a node of a known fixture
      (bad.nodes.width as any).value = 5000;
      const res = await render(server.url, s.token, s.origin, { dag: bad });
      const body = await problem(res, 422, "invalid_parameters");
      assert.equal(body.pointer, "/nodes/width/value");
    });
    await t.step("an unknown version → 404", async () => {
      const res = await render(server.url, s.token, s.origin, { dag, version: 9 });
      await problem(res, 404, "unknown_project_version");
    });
    await t.step("a hostile DAG → 422, never 500", async () => {
      const chain: Record<string, unknown> = {};
      for (let i = 0; i < 3000; i++) chain[`n${i}`] = { op: "add", args: [{ ref: `n${i + 1}` }] };
      const res = await render(server.url, s.token, s.origin, {
        dag: { dag: 1, nodes: chain, output: "n0" },
      });
      await problem(res, 422, "invalid_dag");
    });
  } finally {
    await server.close();
  }
});

Deno.test("render - budgets are spent atomically per token and refuse when spent", async () => {
  const server = await startTestServer();
  try {
    const s = await setup(server, { budget: 3 });
    const dag = await finishedDag("plate");
    const statuses = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const res = await render(server.url, s.token, s.origin, { dag });
        await res.body?.cancel();
        return res.status;
      }),
    );
    assert.deepEqual(statuses.sort(), [200, 200, 200, 429, 429, 429]);
    const res = await render(server.url, s.token, s.origin, { dag });
    assert.equal((await problem(res, 429, "budget_exhausted")).remaining, 0);
    // A new token has a fresh budget.
    const fresh = await (await mint(server.url, { keyId: s.keyId, projectId: s.project }, {
      origin: s.origin,
    })).json();
    const ok = await render(server.url, fresh.token, s.origin, { dag });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("render - a render refused for its budget leaves no lease behind: the next token's render of that DAG evaluates at once, holding its own", async () => {
  const server = await startTestServer();
  const redis = createClient({ url: TEST_REDIS_URL });
  await redis.connect();
  try {
    const s = await setup(server, { budget: 1 });
    const spent = await render(server.url, s.token, s.origin, { dag: await finishedDag("plate") });
    assert.equal(spent.status, 200);
    await spent.body?.cancel();
    // The refused request's L2 read and lease attempt left with its spend (one round trip).
    const dag = await finishedDag("plate", { width: 123.5 });
    await problem(await render(server.url, s.token, s.origin, { dag }), 429, "budget_exhausted");
    const leases = `${server.config.redisPrefix}render-lease:*`;
    const since = Date.now();
    while ((await redis.keys(leases)).length > 0) {
      assert.ok(Date.now() - since < 2000, "the refused render's lease was never dropped");
      await new Promise((r) => setTimeout(r, 10));
    }
    const fresh = await (await mint(server.url, { keyId: s.keyId, projectId: s.project }, {
      origin: s.origin,
    })).json();
    const ok = await render(server.url, fresh.token, s.origin, { dag });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).cache, "miss");
    const evaluations = server.deps.metrics.renderEvaluations;
    assert.equal(evaluations.get({ lease: "held" }), 2, "both evaluations held the lease at once");
    assert.equal(evaluations.get({ lease: "takeover" }), 0);
  } finally {
    await redis.close();
    await server.close();
  }
});

Deno.test("render - an expired token answers 401 token_expired, readable by its origin", async () => {
  let now = Date.now();
  const server = await startTestServer({ clock: () => now });
  try {
    const s = await setup(server);
    now += 31 * 60 * 1000 + 61_000;
    const res = await render(server.url, s.token, s.origin, { dag: await finishedDag("plate") });
    assert.equal(
      res.headers.get("access-control-allow-origin"),
      s.origin,
      "the client can read why",
    );
    await problem(res, 401, "token_expired");
  } finally {
    await server.close();
  }
});

Deno.test("render - revoking the key stops its tokens at once", async () => {
  const server = await startTestServer();
  try {
    const s = await setup(server);
    const dag = await finishedDag("plate");
    const ok = await render(server.url, s.token, s.origin, { dag });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    await revokeSdkKey(server.deps.kv, s.keyId, { replica: server.deps.render!.revocations });
    await problem(await render(server.url, s.token, s.origin, { dag }), 401, "token_revoked");
  } finally {
    await server.close();
  }
});

Deno.test("render - preflight allows authorization, content-type and idempotency-key from any origin", async () => {
  const server = await startTestServer();
  try {
    const res = await fetch(`${server.url}${RENDER}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, idempotency-key",
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "https://shop.example");
    assert.equal(
      res.headers.get("access-control-allow-headers"),
      "authorization, content-type, idempotency-key",
    );
  } finally {
    await server.close();
  }
});

Deno.test("render - ROLE=kernel verifies with the hub's JWKS and holds no signing key", async () => {
  const hub = await startTestServer({ env: { ROLE: "hub" } });
  const kernel = await startTestServer({
    env: { ROLE: "kernel", HUB_URL: hub.url, REDIS_PREFIX: hub.config.redisPrefix },
    kv: hub.deps.kv,
  });
  try {
    assert.equal(kernel.deps.hub, undefined, "no keyring on a render node");
    const s = await setup(hub);
    const dag = await finishedDag("plate");
    const res = await render(kernel.url, s.token, s.origin, { dag });
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
    // The hub does not render, the kernel does not mint.
    const onHub = await render(hub.url, s.token, s.origin, { dag });
    assert.equal(onHub.status, 404);
    await onHub.body?.cancel();
    const m = await mint(kernel.url, { keyId: s.keyId, projectId: s.project }, {
      origin: s.origin,
    });
    assert.equal(m.status, 404);
    await m.body?.cancel();
  } finally {
    await kernel.close();
    await hub.close();
  }
});
