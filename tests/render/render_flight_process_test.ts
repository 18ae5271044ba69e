/**
 * Cross-node single-flight with real processes (issue 17, part 3): a hub and two kernel nodes
 * (`ROLE=kernel`, only `HUB_URL` and `REDIS_URL`) share one Redis. 32 identical concurrent cold
 * renders split 16/16 over the nodes are evaluated once in all (each node's
 * `kernel_render_evaluations_total`), all answer 200 with the same meshes, and the token's budget
 * is spent by exactly 32 units. Then the fault: the node holding the lease is frozen (SIGSTOP)
 * mid-evaluation; the other node's renders complete once the lease expires, and after SIGCONT the
 * frozen node's render does too. Nothing may hang (guard: 60 s); how long the takeover took is printed.
 */
import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import { openKv } from "@/lib/store/kv.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { closeRedis, connectRedis, type RedisClient } from "@/lib/redis/client.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { type ServerProcess, startServerProcess } from "../_helpers/process.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { deleteRedisPrefix, rid, TEST_REDIS_URL } from "../_helpers/redis.ts";
import { finish, heavyProject, mintToken, render } from "./render_helpers.ts";

const HANG_GUARD_MS = 60_000;

/** Rejects when `promise` has not settled within the hang guard. */
async function guarded<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: hung`)), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** The sum of a counter's series in a node's `/metrics` (optionally only those with `label`). */
async function counter(node: ServerProcess, name: string, label = ""): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      if (label && !line.includes(label)) continue;
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return sum;
}

/** A render's status and JSON body. */
async function rendered(res: Promise<Response>) {
  const r = await res;
  const text = await r.text();
  return { status: r.status, text, body: r.status === 200 ? JSON.parse(text) : undefined };
}

/** The lease keys present now. */
async function leases(redis: RedisClient, prefix: string): Promise<string[]> {
  return await redis.keys(`${prefix}render-lease:v1:*`);
}

Deno.test("render flight - 32 identical renders split over two kernel nodes evaluate once; a frozen holder is taken over", async (t) => {
  const dir = await Deno.makeTempDir();
  const prefix = `flight:${rid(6)}:`;
  const hubKv = `${dir}/hub.kv`;
  const kv = await openKv(hubKv);
  const redis = await connectRedis(TEST_REDIS_URL, new Logger("error", () => {}));
  const nodes: ServerProcess[] = [];
  let hub: ServerProcess | undefined;
  let frozen: ServerProcess | undefined;
  try {
    hub = await startServerProcess({
      ROLE: "hub",
      KV_PATH: hubKv,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SEED_DEMO: "false",
    });
    for (let i = 0; i < 2; i++) {
      nodes.push(
        await startServerProcess({
          ROLE: "kernel",
          HUB_URL: hub.url,
          REDIS_URL: TEST_REDIS_URL,
          // Only to share the test's prefix and keep the suite's other data apart.
          REDIS_PREFIX: prefix,
          RENDER_WORKERS: "1",
          // The frozen holder's evaluation is heavy on a shared machine: no deadline in the way.
          RENDER_DEADLINE_MS: "40000",
        }),
      );
    }
    const [a, b] = nodes;

    await t.step("32 identical concurrent cold renders, 16 per node: one evaluation", async () => {
      const f = await createKeyFixture(kv, { budget: 100 });
      await publishFixture(kv, f.partnerId, f.project);
      const token = await mintToken(hub!.url, f);
      const dag = await finishedDag("plate", { width: 123, holes: 3 });
      const replies = await guarded(
        "the burst",
        Promise.all(
          Array.from(
            { length: 32 },
            (_, i) => rendered(render(nodes[i % 2].url, token, f.origin, { dag })),
          ),
        ),
      );
      for (const r of replies) assert.equal(r.status, 200, r.text);
      const evaluations = await counter(a, "kernel_render_evaluations_total") +
        await counter(b, "kernel_render_evaluations_total");
      assert.equal(evaluations, 1, "one evaluation for both nodes");
      const first = replies[0].body;
      for (const r of replies) {
        assert.equal(r.body.dagHash, first.dagHash);
        assert.deepEqual(r.body.scene, first.scene, "the same parts and mesh hashes");
        assert.deepEqual(r.body.meshes, first.meshes);
      }
      // Every request spent its own unit, waiting or not: exactly 32, each remaining count once.
      const remaining = replies.map((r) => r.body.budget.remaining).sort((x, y) => x - y);
      assert.deepEqual(remaining, Array.from({ length: 32 }, (_, i) => 68 + i));
      const levels = replies.map((r) => r.body.cache as string);
      const waits = await counter(a, "kernel_render_lease_waits_total") +
        await counter(b, "kernel_render_lease_waits_total");
      console.log(
        `32 renders over 2 nodes: 1 evaluation; cache levels ${
          JSON.stringify(Object.fromEntries(["miss", "l2", "l1"].map((l) => [
            l,
            levels.filter((x) => x === l).length,
          ])))
        }; cross-node waits ${waits}`,
      );
      assert.deepEqual(await leases(redis, prefix), [], "no lease left behind");
    });

    await t.step(
      "the lease holder frozen mid-evaluation: the other node takes over after the lease expires",
      async () => {
        const f = await createKeyFixture(kv, { budget: 100 });
        const project = heavyProject(10);
        await publishProject(kv, f.project, project, { partnerId: f.partnerId });
        const token = await mintToken(hub!.url, f);
        const dag = finish(project);
        const before = {
          a: await counter(a, "kernel_render_evaluations_total"),
          b: await counter(b, "kernel_render_evaluations_total"),
        };
        // One request on A, frozen once it holds the lease and evaluates: its evaluation counted
        // (after every check). The lease alone is not enough: it is asked for in the budget
        // spend's round trip, and a request frozen before it read that answer would fail closed
        // at resume (its Redis deadline passed), which is not the point here.
        const onA = rendered(render(a.url, token, f.origin, { dag }));
        const since = performance.now();
        while (
          (await leases(redis, prefix)).length === 0 ||
          await counter(a, "kernel_render_evaluations_total") === before.a
        ) {
          if (performance.now() - since > HANG_GUARD_MS) throw new Error("A never evaluated");
          await new Promise((r) => setTimeout(r, 5));
        }
        Deno.kill(a.pid, "SIGSTOP");
        frozen = a;
        const stoppedAt = performance.now();
        const onB = await guarded(
          "B's renders while A is frozen",
          Promise.all(
            Array.from({ length: 4 }, () => rendered(render(b.url, token, f.origin, { dag }))),
          ),
        );
        const tookOver = Math.round(performance.now() - stoppedAt);
        for (const r of onB) assert.equal(r.status, 200, r.text);
        assert.equal(await counter(b, "kernel_render_evaluations_total") - before.b, 1);
        assert.equal(await counter(b, "kernel_render_evaluations_total", 'lease="takeover"'), 1);
        assert.equal(await counter(b, "kernel_render_lease_waits_total", 'outcome="takeover"'), 1);
        Deno.kill(a.pid, "SIGCONT");
        frozen = undefined;
        const fromA = await guarded("A's render after SIGCONT", onA);
        assert.equal(fromA.status, 200, fromA.text);
        assert.equal(await counter(a, "kernel_render_evaluations_total") - before.a, 1);
        assert.deepEqual(fromA.body.scene, onB[0].body.scene);
        console.log(
          `frozen holder: B's 4 renders answered ${tookOver} ms after SIGSTOP (lease TTL 3 s)`,
        );
      },
    );
  } finally {
    if (frozen) Deno.kill(frozen.pid, "SIGCONT");
    for (const node of nodes) await node.stop();
    await hub?.stop();
    kv.close();
    await closeRedis(redis);
    await deleteRedisPrefix(TEST_REDIS_URL, prefix);
    await Deno.remove(dir, { recursive: true });
  }
});
