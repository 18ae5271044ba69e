import assert from "node:assert/strict";
import { MAX_FOREIGN_ORIGINS, usageCsv, UsageRecorder, usageSummary } from "@/lib/hub/usage.ts";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";

Deno.test({
  name:
    "usage - mints by outcome and origin, renders, budget exhaustions and cache hits are counted",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startTestServer();
    try {
      const { kv } = server.deps;
      const f = await createKeyFixture(kv, { budget: 2 });
      await publishFixture(kv, f.partnerId, f.project);
      const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
        origin: f.origin,
      });
      const { token } = await res.json();
      for (const [origin, project] of [["https://evil.example", f.project], [f.origin, "nope"]]) {
        const denied = await mint(server.url, { keyId: f.keyId, projectId: project }, { origin });
        assert.equal(denied.status, 403);
        await denied.body?.cancel();
      }
      // Unknown keys are not counted anywhere (no key, no usage page).
      const unknown = await mint(server.url, { keyId: "kaaaaaaaaaaaaaaaaaaaa", projectId: "x" }, {
        origin: f.origin,
      });
      await unknown.body?.cancel();
      const dag = await finishedDag("plate", { width: 100 });
      const render = () =>
        fetch(`${server.url}/v1/kernels/manifold/render`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            origin: f.origin,
            "content-type": "application/json",
          },
          body: JSON.stringify({ dag }),
        });
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const r = await render();
        statuses.push(r.status);
        await r.body?.cancel();
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      await server.deps.usage!.flush();
      const u = await usageSummary(kv, f.keyId);
      assert.equal(u.mintsOk, 1);
      assert.equal(u.mintsDenied, 2);
      assert.deepEqual(
        u.denials.map((d) => `${d.reason} ${d.origin} ${d.count}`).sort(),
        [`origin_not_allowed https://evil.example 1`, `project_not_allowed ${f.origin} 1`],
      );
      assert.equal(u.renders, 2);
      assert.equal(u.budgetExhausted, 1);
      assert.equal(u.cacheHitRatio, 0.5, "the second render of the same DAG is an L1 hit");
      assert.ok(u.lastUsedAt! > 0);
      const keys = [];
      for await (const e of kv.list({ prefix: ["usage", "kaaaaaaaaaaaaaaaaaaaa"] })) {
        keys.push(e.key);
      }
      assert.deepEqual(keys, []);
    } finally {
      await server.close();
    }
  },
});

Deno.test("usage - foreign origins per key and day are bounded; CSV cells are defused", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // Only existing keys are counted; the recorder only checks that the record exists.
    await kv.set(["sdk_keys", "kkey"], {});
    await kv.set(["sdk_keys", "kother"], {});
    const usage = new UsageRecorder(kv, { clock: () => Date.UTC(2026, 0, 2, 12) });
    for (let i = 0; i < MAX_FOREIGN_ORIGINS + 15; i++) {
      usage.recordMint("kkey", "origin_not_allowed", `https://o${i}.example`, [
        "https://ok.example",
      ]);
      await usage.flush();
    }
    usage.recordMint("kkey", "ok", "https://ok.example", ["https://ok.example"]);
    usage.recordMint("kother", "origin_not_allowed", '=HYPERLINK("x")', []);
    await usage.flush();
    const s = await usageSummary(kv, "kkey");
    const origins = new Set(
      s.rows.filter((r) => r.outcome === "origin_not_allowed").map((r) => r.detail),
    );
    assert.equal(origins.size, MAX_FOREIGN_ORIGINS + 1, "20 named origins plus (other)");
    assert.equal(s.rows.find((r) => r.detail === "(other)")?.count, 15);
    assert.equal(s.mintsOk, 1, "allowed origins are always named");
    const csv = usageCsv("kother", (await usageSummary(kv, "kother")).rows);
    assert.match(csv, /,"'=HYPERLINK\(""x""\)",1\r\n/, "a formula never starts a cell");
  } finally {
    kv.close();
  }
});

Deno.test({
  name:
    "usage - the hosted configurator's mints (under the embedding origin) and its renders are counted",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startTestServer();
    try {
      const { kv } = server.deps;
      const f = await createKeyFixture(kv);
      await publishFixture(kv, f.partnerId, f.project);
      const hosted = (parentOrigin: string) =>
        fetch(`${server.url}/configurator/${f.project}/session-token`, {
          method: "POST",
          // The hosted page is the hub's own: its requests carry the hub's origin.
          headers: { origin: server.url, "content-type": "application/json" },
          body: JSON.stringify({ keyId: f.keyId, projectId: f.project, parentOrigin }),
        });
      const ok = await hosted(f.origin);
      assert.equal(ok.status, 200);
      const { token } = await ok.json();
      const denied = await hosted("https://framer.example");
      assert.equal(denied.status, 403);
      await denied.body?.cancel();
      const dag = await finishedDag("plate", { width: 80 });
      const r = await fetch(`${server.url}/v1/kernels/manifold/render`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          origin: server.url,
          "content-type": "application/json",
        },
        body: JSON.stringify({ dag }),
      });
      assert.equal(r.status, 200);
      await r.body?.cancel();
      await server.deps.usage!.flush();
      const u = await usageSummary(kv, f.keyId);
      assert.equal(u.mintsOk, 1);
      assert.deepEqual(u.mintOrigins, [{ origin: f.origin, count: 1 }]);
      assert.deepEqual(u.denials, [
        { reason: "origin_not_allowed", origin: "https://framer.example", count: 1 },
      ]);
      assert.equal(u.renders, 1);
    } finally {
      await server.close();
    }
  },
});
