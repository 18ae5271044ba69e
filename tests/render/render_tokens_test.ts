/** Tokens against a running server and the real Redis: origin binding and atomic budgets. */
import assert from "node:assert/strict";
import { BUDGET_GRACE_S } from "@/lib/render/budget.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { rid, startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "./render_helpers.ts";

Deno.test("render - a token that rendered from its origin is refused from a second origin", async () => {
  const server = await startTestServer();
  try {
    // The key allows both shops, so only the token's origin claim can tell them apart.
    const first = `https://first-${rid()}.example`;
    const second = `https://second-${rid()}.example`;
    const s = await setupRender(server.deps.kv, server.url, {
      allowedOrigins: [first, second],
      budget: 10,
    });
    assert.equal(s.origin, first);
    const dag = await finishedDag("plate");

    const ok = await render(server.url, s.token, first, { dag });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal(ok.headers.get("access-control-allow-origin"), first);
    assert.equal((await ok.json()).budget.remaining, 9);

    const refused = await render(server.url, s.token, second, { dag });
    assert.equal(refused.headers.get("access-control-allow-origin"), null, "not readable there");
    const problem = await expectProblem(refused, 403, "origin_mismatch");
    assert.match(String(problem.detail), new RegExp(second.replaceAll(".", "\\.")));

    // The refusal spent nothing, and the token still works where it belongs.
    const again = await render(server.url, s.token, first, { dag });
    assert.equal(again.status, 200);
    assert.equal((await again.json()).budget.remaining, 8);
  } finally {
    await server.close();
  }
});

Deno.test("render - exactly B of 50 concurrent renders succeed with budget B, the rest 429", async () => {
  const server = await startTestServer();
  try {
    const budget = 7;
    const s = await setupRender(server.deps.kv, server.url, { budget });
    const dag = await finishedDag("plate", { width: 90 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => render(server.url, s.token, s.origin, { dag })),
    );
    const bodies = await Promise.all(responses.map((res) => res.json()));
    const ok = bodies.filter((_, i) => responses[i].status === 200);
    const refused = bodies.filter((_, i) => responses[i].status === 429);
    assert.equal(ok.length, budget);
    assert.equal(refused.length, 50 - budget);
    for (const body of refused) {
      assert.equal(body.code, "budget_exhausted");
      assert.equal(body.remaining, 0);
    }
    // Each success saw a distinct remaining count: the spends were serialized by the script.
    const remaining = ok.map((body) => body.budget.remaining).sort((a, b) => a - b);
    assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6]);
    // The counter lives in Redis under the token's jti, counts only what was served, and
    // outlives the verifier's leeway after exp (lib/render/budget.ts).
    const claims = JSON.parse(atob(s.token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    const key = `${server.config.redisPrefix}budget:{${claims.jti}}`;
    assert.equal(await server.deps.redis!.get(key), String(budget));
    const expireAt = await server.deps.redis!.expireTime(key);
    assert.equal(expireAt, claims.exp + BUDGET_GRACE_S);
  } finally {
    await server.close();
  }
});

Deno.test("render - a null budget is unlimited and writes no counter", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: null });
    const dag = await finishedDag("plate");
    for (let i = 0; i < 3; i++) {
      const res = await render(server.url, s.token, s.origin, { dag });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).budget.remaining, null);
    }
    const keys = await server.deps.redis!.keys(`${server.config.redisPrefix}budget:*`);
    assert.deepEqual(keys, []);
  } finally {
    await server.close();
  }
});

Deno.test("render - a revoked token is reported before an origin or body error", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 5 });
    await revokeSdkKey(server.deps.kv, s.keyId, { replica: server.deps.render!.revocations });
    const dag = await finishedDag("plate");
    const cases: [string, string | null, unknown][] = [
      ["a valid request", s.origin, { dag }],
      ["a wrong origin", "https://elsewhere.example", { dag }],
      ["no origin", null, { dag }],
      ["malformed JSON", s.origin, "{"],
      ["a DAG that is not an instance", s.origin, { dag: { dag: 1, nodes: {}, output: "x" } }],
    ];
    for (const [name, origin, body] of cases) {
      const res = await render(server.url, s.token, origin, body);
      const problem = await expectProblem(res, 401, "token_revoked");
      assert.ok(problem.detail, name);
    }
  } finally {
    await server.close();
  }
});
