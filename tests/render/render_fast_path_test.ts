/**
 * The render fast path (lib/render/render.ts): a body whose exact text passed the checks before
 * sends the budget spend and the L2 read to Redis as one batch (the revocation check is in
 * memory). Against a running server and the real Redis: revocation still wins, budgets stay exact.
 */
import assert from "node:assert/strict";
import { createSdkKey, revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { revokeToken } from "@/lib/hub/token_revocation.ts";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, mintToken, render, setupRender } from "./render_helpers.ts";

function claimsOf(token: string): { jti: string; exp: number } {
  return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
}

Deno.test("render fast path - a remembered body still refuses a revoked token or key first", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 10 });
    const body = { dag: await finishedDag("plate", { width: 70 }) };
    const memo = server.deps.render!.checkedBodies!;
    const first = await render(server.url, s.token, s.origin, body);
    assert.equal(first.status, 200, await first.clone().text());
    assert.equal((await first.json()).budget.remaining, 9);
    assert.equal(memo.size, 0, "a body seen once is not remembered");
    const second = await render(server.url, s.token, s.origin, body);
    assert.equal((await second.json()).budget.remaining, 8);
    assert.equal(memo.size, 1, "seen twice, it is remembered: later renders take the fast path");

    // One token revoked by jti: refused, and another token of the same key still renders.
    const replica = server.deps.render!.revocations;
    const { jti, exp } = claimsOf(s.token);
    await revokeToken(server.deps.kv, jti, exp, { replica });
    await expectProblem(await render(server.url, s.token, s.origin, body), 401, "token_revoked");
    // The revocation check comes before the spend: the refused request spent nothing.
    const counter = `${server.config.redisPrefix}budget:{${jti}}`;
    assert.equal(await server.deps.redis!.get(counter), "2");
    const other = await mintToken(server.url, s);
    const ok = await render(server.url, other, s.origin, body);
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).cache, "l1");

    // The key revoked: every token refused, before an origin error too.
    await revokeSdkKey(server.deps.kv, s.keyId, { replica });
    await expectProblem(await render(server.url, other, s.origin, body), 401, "token_revoked");
    await expectProblem(
      await render(server.url, other, "https://elsewhere.example", body),
      401,
      "token_revoked",
    );
  } finally {
    await server.close();
  }
});

Deno.test("render fast path - exactly B of 50 concurrent renders of a remembered body succeed", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 100 });
    const body = { dag: await finishedDag("plate", { width: 95 }) };
    for (let i = 0; i < 2; i++) {
      const warm = await render(server.url, s.token, s.origin, body);
      assert.equal(warm.status, 200, await warm.clone().text());
      await warm.body?.cancel();
    }
    assert.equal(server.deps.render!.checkedBodies!.size, 1, "seen twice, the body is remembered");

    // A second key of budget B for the same project: its token renders the remembered body.
    const budget = 6;
    const { key, record } = await createSdkKey(server.deps.kv, {
      partnerId: s.partnerId,
      label: "budget B",
      allowedOrigins: [s.origin],
      allowedProjects: [s.project],
      budget,
    });
    const token = await mintToken(server.url, { ...s, key, keyId: record.keyId });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => render(server.url, token, s.origin, body)),
    );
    const bodies = await Promise.all(responses.map((res) => res.json()));
    const ok = bodies.filter((_, i) => responses[i].status === 200);
    const refused = bodies.filter((_, i) => responses[i].status === 429);
    assert.equal(ok.length, budget);
    assert.equal(refused.length, 50 - budget);
    assert.ok(ok.every((r) => r.cache === "l1"));
    assert.deepEqual(ok.map((r) => r.budget.remaining).sort((x, y) => x - y), [0, 1, 2, 3, 4, 5]);
    for (const r of refused) assert.equal(r.code, "budget_exhausted");
    const { jti } = claimsOf(token);
    assert.equal(
      await server.deps.redis!.get(`${server.config.redisPrefix}budget:{${jti}}`),
      String(budget),
    );
  } finally {
    await server.close();
  }
});
