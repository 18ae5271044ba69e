/**
 * AR tickets (docs/security.md): a session-token holder gets a short-lived URL of a configuration's
 * GLB that Scene Viewer fetches with no token and no Origin; the GLB passes the Khronos validator;
 * a second kernel node sharing Redis serves the same ticket; unknown, malformed and expired
 * tickets are 404s with a stable code.
 */
import assert from "node:assert/strict";
import validator from "gltf-validator";
import { ArTickets, isArTicketId } from "@/lib/render/ar_ticket.ts";
import { connectRedis } from "@/lib/redis/client.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { deleteRedisPrefix, rid, startTestServer, TEST_REDIS_URL } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "./render_helpers.ts";

const TICKET = "/v1/kernels/manifold/ar-ticket";

Deno.test("AR ticket - issued with a render's checks and one unit, fetched without a token on any node, refused when unknown", async (t) => {
  const server = await startTestServer();
  // A second node: its own process state, the same Redis prefix.
  const other = await startTestServer({ env: { REDIS_PREFIX: server.config.redisPrefix } });
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 3 });
    const dag = await finishedDag("plate", { width: 100, holes: 3 });
    let path = "";

    await t.step("a token holder gets { url, expiresAt } for one unit", async () => {
      const before = Date.now();
      const res = await render(server.url, s.token, s.origin, { dag }, { path: TICKET });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.equal(res.headers.get("access-control-allow-origin"), s.origin);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal(res.headers.get("x-render-remaining"), "2");
      const { url, expiresAt } = JSON.parse(text);
      const base = `${server.config.kernelUrl}/v1/kernels/manifold/ar/`;
      assert.ok(url.startsWith(base), url);
      assert.ok(url.endsWith(".glb"), url);
      assert.ok(isArTicketId(url.slice(base.length, -".glb".length)), url);
      assert.ok(expiresAt >= before + 299_000 && expiresAt <= Date.now() + 300_000, expiresAt);
      path = new URL(url).pathname;
    });

    await t.step("the GLB is served with no token and no Origin, and validates", async () => {
      for (const node of [server, other, server]) {
        const res = await fetch(`${node.url}${path}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "model/gltf-binary");
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        const age = /^private, max-age=(\d+)$/.exec(res.headers.get("cache-control") ?? "");
        assert.ok(age && Number(age[1]) <= 300 && Number(age[1]) >= 200, String(age));
        const glb = new Uint8Array(await res.arrayBuffer());
        const report = await validator.validateBytes(glb, { maxIssues: 50 });
        assert.equal(report.issues.numErrors, 0, JSON.stringify(report.issues.messages));
      }
      // Fetching spends nothing: one unit is left of three.
      const res = await render(server.url, s.token, s.origin, { dag }, { path: TICKET });
      assert.equal(res.headers.get("x-render-remaining"), "1");
      await res.body?.cancel();
    });

    await t.step("a ticket is refused as an export is", async () => {
      await expectProblem(
        await render(server.url, null, s.origin, { dag }, { path: TICKET }),
        401,
        "invalid_token",
      );
      await expectProblem(
        await render(server.url, s.token, "https://evil.example", { dag }, { path: TICKET }),
        403,
        "origin_mismatch",
      );
      const noGlb = await setupRender(server.deps.kv, server.url, {
        exportFormats: { browser: ["stl"], server: ["glb", "stl", "3mf"] },
      });
      const refused = await expectProblem(
        await render(server.url, noGlb.token, noGlb.origin, { dag }, { path: TICKET }),
        403,
        "export_format_not_allowed",
      );
      assert.equal(refused.format, "glb");
      const res = await render(server.url, s.token, s.origin, { dag }, { path: TICKET });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await expectProblem(
        await render(server.url, s.token, s.origin, { dag }, { path: TICKET }),
        429,
        "budget_exhausted",
      );
    });

    await t.step("unknown, malformed and wrong-kernel tickets are 404s", async () => {
      const unknown = "AAAAAAAAAAAAAAAAAAAAAA";
      for (const file of [`${unknown}.glb`, "nope.glb", `${unknown}.usdz`, unknown]) {
        await expectProblem(
          await fetch(`${other.url}/v1/kernels/manifold/ar/${file}`),
          404,
          "ar_ticket_unknown",
        );
      }
      await expectProblem(
        await fetch(`${server.url}${path.replace("/manifold/", "/cgal/")}`),
        404,
        "unknown_kernel",
      );
    });
  } finally {
    await other.close();
    await server.close();
  }
});

Deno.test("AR ticket store - a ticket lives its TTL in Redis and in process, then is gone", async () => {
  const prefix = `test:${rid(6)}:`;
  const redis = await connectRedis(TEST_REDIS_URL, new Logger("error", () => {}));
  try {
    const file = new TextEncoder().encode("glTF-bytes");
    for (
      const store of [
        new ArTickets({ redis, prefix, ttlMs: 150 }),
        new ArTickets({ prefix, ttlMs: 150 }),
      ]
    ) {
      const { ticket, expiresAt } = await store.issue(file);
      assert.ok(isArTicketId(ticket));
      const live = await store.get(ticket);
      assert.deepEqual(live, { file, expiresAt });
      assert.deepEqual(await store.get(ticket), live, "a fetch does not consume the ticket");
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await store.get(ticket), null);
      assert.equal(await store.get("../etc"), null);
    }
  } finally {
    await deleteRedisPrefix(TEST_REDIS_URL, prefix);
    await redis.close();
  }
});
