/**
 * The wall-clock deadline through the server: a render that runs past RENDER_DEADLINE_MS is
 * answered with `render_timeout` (its worker is terminated and replaced), renders on other
 * workers go on meanwhile, and the server answers the next render and /healthz normally.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import {
  expectProblem,
  finish,
  heavyProject,
  render,
  setupRender,
  tokenClaims,
} from "./render_helpers.ts";

Deno.test("render - a render past the deadline is killed with render_timeout and the server goes on", async () => {
  // The heavy model takes seconds on an idle machine; the deadline is well under that.
  const server = await startTestServer({
    env: { RENDER_DEADLINE_MS: "1500", RENDER_WORKERS: "2" },
  });
  try {
    const project = heavyProject(16);
    // Budget 1: a render stopped at the deadline costs nothing, so both heavy attempts below
    // reach the pool (without the refund the second would be 429 budget_exhausted).
    const heavy = await setupRender(server.deps.kv, server.url, { budget: 1 }, project);
    const light = await setupRender(server.deps.kv, server.url, { budget: 10 });

    const slow = render(server.url, heavy.token, heavy.origin, { dag: finish(project) });
    // While the heavy job holds one worker, a light render is served by the other.
    const meanwhile = await render(server.url, light.token, light.origin, {
      dag: await finishedDag("plate"),
    });
    assert.equal(meanwhile.status, 200, await meanwhile.clone().text());
    assert.equal((await meanwhile.json()).cache, "miss");

    const timedOut = await expectProblem(await slow, 503, "render_timeout");
    assert.equal(timedOut.reason, "deadline");
    assert.match(String(timedOut.detail), /1500 ms/);

    // The server answers normally afterwards: health, and a new render (a fresh evaluation).
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200, await health.clone().text());
    await health.body?.cancel();
    const next = await render(server.url, light.token, light.origin, {
      dag: await finishedDag("plate", { width: 60 }),
    });
    assert.equal(next.status, 200, await next.clone().text());
    const body = await next.json();
    assert.equal(body.cache, "miss");
    assert.ok(body.scene.volume > 0);

    // A timed-out render is not cached: asking again evaluates again (and times out again).
    const retry = await render(server.url, heavy.token, heavy.origin, { dag: finish(project) });
    const again = await expectProblem(retry, 503, "render_timeout");
    assert.ok(Number(retry.headers.get("retry-after")) >= 1, JSON.stringify(again));
    const { jti } = tokenClaims(heavy.token);
    assert.equal(
      await server.deps.redis!.get(`${server.config.redisPrefix}budget:{${jti}}`),
      "0",
      "both timed-out renders were refunded",
    );
  } finally {
    await server.close();
  }
});
