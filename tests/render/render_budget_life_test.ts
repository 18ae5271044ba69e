/**
 * A token's budget holds for as long as the token is accepted: through the verifier's clock
 * leeway after `exp`, and across a Redis that loses its data (FLUSHALL, or a restart without
 * persistence) — a token whose counter is gone is sent to mint again (401 `token_expired`, reason
 * `budget_reset`) instead of being handed a fresh budget. Real Redis: the shared one for the
 * leeway, a private `redis-server` for the wipe and the restart.
 */
import assert from "node:assert/strict";
import { CLOCK_LEEWAY_S } from "@/lib/token/claims.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, mintToken, render, setupRender } from "./render_helpers.ts";

/** Renders `n` times in sequence; returns the statuses. */
async function renderTimes(
  url: string,
  token: string,
  origin: string,
  n: number,
): Promise<number[]> {
  const dag = await finishedDag("plate", { width: 70 });
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await render(url, token, origin, { dag });
    statuses.push(res.status);
    await res.body?.cancel();
  }
  return statuses;
}

Deno.test("render budget - exact across the whole accepted life, leeway after exp included", async () => {
  let now = Date.now();
  const server = await startTestServer({ clock: () => now });
  try {
    const budget = 5;
    const s = await setupRender(server.deps.kv, server.url, { budget, defaultTtlSeconds: 120 });
    // Two renders while the token is fresh …
    const early = await renderTimes(server.url, s.token, s.origin, 2);
    // … then the clock moves past exp, into the leeway where the verifier still accepts it.
    now += (120 + CLOCK_LEEWAY_S / 2) * 1000;
    const dag = await finishedDag("plate", { width: 70 });
    const late = await Promise.all(
      Array.from({ length: 20 }, () => render(server.url, s.token, s.origin, { dag })),
    );
    const lateStatuses = late.map((res) => res.status);
    await Promise.all(late.map((res) => res.body?.cancel()));
    const served = [...early, ...lateStatuses].filter((status) => status === 200).length;
    console.log(`budget ${budget}: ${served} renders served over the token's accepted life`);
    assert.equal(served, budget);
    assert.equal(lateStatuses.filter((status) => status === 429).length, 20 - (budget - 2));
    // Past the leeway the token itself is refused.
    now += CLOCK_LEEWAY_S * 1000;
    await expectProblem(await render(server.url, s.token, s.origin, { dag }), 401, "token_expired");
  } finally {
    await server.close();
  }
});

Deno.test("render budget - a Redis wipe or restart sends the token to mint again, never a fresh budget", async () => {
  const redis = await PrivateRedis.start();
  const server = await startTestServer({ env: { REDIS_URL: redis.url } });
  try {
    const budget = 3;
    const s = await setupRender(server.deps.kv, server.url, { budget });
    assert.deepEqual(await renderTimes(server.url, s.token, s.origin, 2), [200, 200]);

    await redis.flushAll();
    const dag = await finishedDag("plate", { width: 70 });
    const afterWipe = await Promise.all(
      Array.from({ length: 10 }, () => render(server.url, s.token, s.origin, { dag })),
    );
    for (const res of afterWipe) {
      const problem = await expectProblem(res, 401, "token_expired");
      assert.equal(problem.reason, "budget_reset");
    }
    console.log(`budget ${budget}: 2 renders before the wipe, 0 of 10 after it`);

    // What the client does on token_expired: mint again. The new token has its own budget.
    const fresh = await mintToken(server.url, s);
    assert.deepEqual(await renderTimes(server.url, fresh, s.origin, 4), [200, 200, 200, 429]);

    // A restart without persistence loses everything the same way; renders recover by themselves
    // once the client re-mints (no restart of the app).
    await redis.restart();
    let status = 0;
    for (let i = 0; i < 100 && status !== 401; i++) {
      const res = await render(server.url, fresh, s.origin, { dag });
      status = res.status;
      if (status === 401) assert.equal((await res.json()).reason, "budget_reset");
      else {
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 100)); // the client is reconnecting meanwhile
      }
    }
    assert.equal(status, 401, "the restarted store refuses the old token");
    let again = "";
    for (let i = 0; i < 100 && !again; i++) {
      try {
        again = await mintToken(server.url, s);
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.deepEqual(await renderTimes(server.url, again, s.origin, 4), [200, 200, 200, 429]);
  } finally {
    await server.close();
    await redis.stop();
  }
});
