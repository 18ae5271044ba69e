/**
 * Fair admission through the server (docs/api.md, "Render admission"), with the real worker
 * pool: one token flooding with slow python-mode renders does not stop another token's renders
 * (another partner's, or the same partner's), the flooder is refused past its caps with
 * `Retry-After`, a cold burst of 32 renders from many tokens is admitted whole, and every 503 the
 * render route answers carries `Retry-After`. Latencies are printed, never asserted.
 */
import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import {
  expectProblem,
  finish,
  heavyProject,
  mintToken,
  render,
  schemaWith,
  setupRender,
} from "./render_helpers.ts";

const ref = (id: string) => ({ ref: id });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A concrete DAG with one part drawing node `child` of `nodes`. */
function concrete(nodes: Record<string, unknown>, child: string): Dag {
  return {
    dag: 1,
    nodes: {
      ...nodes,
      part: { op: "part", name: "P", color: "#112233", child: ref(child) },
      out: { op: "assembly", parts: [ref("part")] },
    },
    output: "out",
  } as unknown as Dag;
}

/** About a second of work within the python-mode limits: 12 rotated 128-segment spheres. */
function slowDag(seed: number): Dag {
  const nodes: Record<string, unknown> = { ball: { op: "sphere", radius: 10, segments: 128 } };
  const children = [];
  for (let i = 0; i < 12; i++) {
    nodes[`r${i}`] = { op: "rotate", child: ref("ball"), degrees: [i * 7 + seed, i * 11, i * 3] };
    nodes[`t${i}`] = { op: "translate", child: ref(`r${i}`), offset: [i * 0.37, 0.1, 0] };
    children.push(ref(`t${i}`));
  }
  nodes.blob = { op: "union", children };
  return concrete(nodes, "blob");
}

/** Milliseconds of work at most: a box. */
function lightDag(size: number): Dag {
  return concrete({ box: { op: "box", size: [size, 10, 10] } }, "box");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** A python-mode project (any concrete DAG renders) with an unlimited key; its first token. */
async function pythonModeSetup(kv: Deno.Kv, hubUrl: string) {
  const f = await createKeyFixture(kv, { budget: null });
  await publishProject(kv, f.project, {
    mode: "python",
    source: "# renders whatever DAG the test sends\n",
    schema: schemaWith(),
  });
  return { ...f, token: await mintToken(hubUrl, f) };
}

/** What one token's sequential renders got. */
interface Served {
  statuses: number[];
  ms: number[];
  remaining: unknown[];
}

async function renderInTurn(
  url: string,
  s: { token: string; origin: string },
  bodies: unknown[],
): Promise<Served> {
  const out: Served = { statuses: [], ms: [], remaining: [] };
  for (const body of bodies) {
    const t0 = performance.now();
    const res = await render(url, s.token, s.origin, body);
    const text = await res.text();
    out.ms.push(performance.now() - t0);
    out.statuses.push(res.status);
    out.remaining.push(res.status === 200 ? JSON.parse(text).budget.remaining : text);
  }
  return out;
}

Deno.test("render admission - one token's flood of slow renders does not stop other tokens' renders", async () => {
  const server = await startTestServer({ env: { RENDER_WORKERS: "2" } });
  try {
    const kv = server.deps.kv;
    const flooder = await pythonModeSetup(kv, server.url);
    // Another token of the flooder's partner (same key), and another partner's budget-5 token.
    const sibling = { ...flooder, token: await mintToken(server.url, flooder) };
    const other = await setupRender(kv, server.url, { budget: 5 });
    // The same light renders on the idle server, for comparison.
    const idle = await renderInTurn(
      server.url,
      sibling,
      [21, 22, 23, 24, 25].map((n) => ({ dag: lightDag(n) })),
    );
    assert.deepEqual(idle.statuses, [200, 200, 200, 200, 200]);

    const flood = {
      ok: 0,
      refused: 0,
      reasons: new Map<string, number>(),
      unexpected: [] as string[],
    };
    let seed = 0;
    let stop = false;
    const floodLoop = async () => {
      while (!stop) {
        const res = await render(server.url, flooder.token, flooder.origin, {
          dag: slowDag(seed++),
        });
        const text = await res.text();
        if (res.status === 200) {
          flood.ok++;
          continue;
        }
        const problem = JSON.parse(text);
        // render_timeout: on a loaded machine one of its renders can run past the 5 s deadline.
        if (res.status !== 503 || !["kernel_busy", "render_timeout"].includes(problem.code)) {
          flood.unexpected.push(`${res.status} ${text}`);
          continue;
        }
        if (!(Number(res.headers.get("retry-after")) >= 1)) {
          flood.unexpected.push(`503 without Retry-After: ${text}`);
        }
        flood.refused++;
        const key = `${problem.code}/${problem.reason}`;
        flood.reasons.set(key, (flood.reasons.get(key) ?? 0) + 1);
        await delay(50); // a flooder that does not honour Retry-After, but does not spin
      }
    };
    const loops = Array.from({ length: 12 }, floodLoop);
    while (flood.refused === 0 && flood.unexpected.length === 0) await delay(20);

    // Meanwhile, each other token renders five distinct (cold) models, one after the other.
    const [otherServed, siblingServed] = await Promise.all([
      renderInTurn(
        server.url,
        other,
        await Promise.all(
          [60, 70, 80, 90, 100].map(async (width) => ({
            dag: await finishedDag("plate", { width }),
          })),
        ),
      ),
      renderInTurn(server.url, sibling, [11, 12, 13, 14, 15].map((n) => ({ dag: lightDag(n) }))),
    ]);
    // The flooder is served too, only not beyond its share.
    while (flood.ok === 0 && flood.unexpected.length === 0) await delay(50);
    stop = true;
    await Promise.all(loops);

    assert.deepEqual(flood.unexpected, []);
    assert.deepEqual(
      otherServed.statuses,
      [200, 200, 200, 200, 200],
      String(otherServed.remaining),
    );
    assert.deepEqual(otherServed.remaining, [4, 3, 2, 1, 0], "each render spent one unit");
    assert.deepEqual(siblingServed.statuses, [200, 200, 200, 200, 200]);
    assert.ok(flood.ok > 0, "the flooder is served too, within its share");
    assert.ok(flood.reasons.has("kernel_busy/token_concurrency"), "12 in flight is over its cap");
    for (const reason of flood.reasons.keys()) {
      // queue_timeout: one of its queued renders outwaited its estimate (a loaded machine).
      assert.match(
        reason,
        /^kernel_busy\/(token_concurrency|queue_full|queue_timeout)$|^render_timeout\/deadline$/,
      );
    }
    console.log(
      `flood (12 loops, one token): ${flood.ok} served, ${flood.refused} answered 503 ` +
        `${JSON.stringify(Object.fromEntries(flood.reasons))}; ` +
        `another partner's token: ${otherServed.statuses.length} of 5 served, p50 ` +
        `${median(otherServed.ms).toFixed(0)} ms (max ${
          Math.max(...otherServed.ms).toFixed(0)
        }); ` +
        `the flooder partner's other token: ${siblingServed.statuses.length} of 5 served, p50 ` +
        `${median(siblingServed.ms).toFixed(0)} ms (max ${
          Math.max(...siblingServed.ms).toFixed(0)
        }); the same renders on the idle server: p50 ${median(idle.ms).toFixed(0)} ms`,
    );
  } finally {
    await server.close();
  }
});

Deno.test("render admission - a cold burst of 32 renders from 32 tokens is admitted whole", async () => {
  const server = await startTestServer({ env: { RENDER_WORKERS: "2" } });
  try {
    const kv = server.deps.kv;
    // Eight storefronts (partners), four visitors (tokens) each.
    const tokens: { token: string; origin: string }[] = [];
    for (let p = 0; p < 8; p++) {
      const s = await setupRender(kv, server.url, { budget: 10 });
      tokens.push(s);
      for (let t = 1; t < 4; t++) tokens.push({ ...s, token: await mintToken(server.url, s) });
    }
    const dags = await Promise.all(
      tokens.map((_, i) => finishedDag("plate", { width: 40 + i, holes: 1 + (i % 6) })),
    );
    const t0 = performance.now();
    const responses = await Promise.all(
      tokens.map(async (s, i) => {
        const res = await render(server.url, s.token, s.origin, { dag: dags[i] });
        const text = await res.text();
        return { status: res.status, text, ms: performance.now() - t0 };
      }),
    );
    const busy = responses.filter((r) => r.status === 503 && /kernel_busy/.test(r.text));
    console.log(
      `cold burst of 32 (8 partners × 4 tokens, 2 workers): ${busy.length} kernel_busy; ` +
        `${responses.filter((r) => r.status === 200).length} served, p50 ` +
        `${median(responses.map((r) => r.ms)).toFixed(0)} ms, last ` +
        `${Math.max(...responses.map((r) => r.ms)).toFixed(0)} ms`,
    );
    assert.equal(busy.length, 0, busy[0]?.text);
    for (const r of responses) {
      assert.equal(r.status, 200, r.text);
      assert.equal(JSON.parse(r.text).cache, "miss");
    }
  } finally {
    await server.close();
  }
});

Deno.test("render admission - every 503 the render route answers carries Retry-After", async (t) => {
  await t.step("kernel_busy and render_timeout", async () => {
    // One worker, no waiting allowed, a deadline well under the heavy model's seconds.
    const server = await startTestServer({
      env: { RENDER_WORKERS: "1", RENDER_QUEUE_WAIT_MS: "0", RENDER_DEADLINE_MS: "1500" },
    });
    try {
      const project = heavyProject(16);
      const heavy = await setupRender(server.deps.kv, server.url, { budget: null }, project);
      const light = await setupRender(server.deps.kv, server.url, { budget: null });

      const timedOut = await render(server.url, heavy.token, heavy.origin, {
        dag: finish(project),
      });
      await expectProblem(timedOut, 503, "render_timeout");
      assert.equal(timedOut.headers.get("retry-after"), "2", "the 1.5 s deadline, rounded up");

      // Light renders are served until the heavy one holds the worker; then one is refused. (If
      // the heavy one came while a light one ran, it was refused itself: try again.)
      let refused: Response | undefined;
      for (let attempt = 0, width = 40; attempt < 5 && !refused; attempt++) {
        let done = false;
        const slow = render(server.url, heavy.token, heavy.origin, { dag: finish(project) })
          .finally(() => done = true);
        while (!done && !refused) {
          await delay(20);
          const res = await render(server.url, light.token, light.origin, {
            dag: await finishedDag("plate", { width: width++ }),
          });
          if (res.status === 200) await res.body?.cancel();
          else refused = res;
        }
        await (await slow).body?.cancel();
      }
      assert.ok(refused, "a render arrived while the heavy one ran");
      const busy = await expectProblem(refused, 503, "kernel_busy");
      assert.equal(busy.reason, "queue_full");
      assert.ok(Number(refused.headers.get("retry-after")) >= 1, JSON.stringify(busy));
    } finally {
      await server.close();
    }
  });

  await t.step("service_unavailable", async () => {
    const redis = await PrivateRedis.start();
    const server = await startTestServer({ env: { REDIS_URL: redis.url } });
    try {
      const s = await setupRender(server.deps.kv, server.url, { budget: 10 });
      await redis.stop();
      const res = await render(server.url, s.token, s.origin, {
        dag: await finishedDag("plate"),
      });
      await expectProblem(res, 503, "service_unavailable");
      assert.ok(Number(res.headers.get("retry-after")) >= 1);
    } finally {
      // Closing removes the test's keys, so it needs a server to talk to (an empty one).
      if (!redis.running) await redis.restart();
      await server.close();
      await redis.stop();
    }
  });
});
