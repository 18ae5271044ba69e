/**
 * The product on a real Redis Cluster (tests/_helpers/redis_cluster.ts: three masters on free
 * ports, never the shared server): the configuration forms, a whole server (mint, render with an
 * L2 hit, exact budgets, revocations, readiness), and one master stopped (`SIGSTOP`, what a hung
 * or partitioned primary looks like): the commands of its slots fail within the deadline (budgets
 * fail closed) while the other masters serve theirs, and everything recovers by itself after
 * `SIGCONT`. No timing is asserted: a call must settle at all (an `AbortSignal`-like guard far
 * above the deadline turns a hang into a failure); the latencies seen are printed for the record.
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "@/lib/config.ts";
import { MintRateLimiter } from "@/lib/hub/rate_limit.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { closeRedis, redisReachable } from "@/lib/redis/client.ts";
import { connectRedisCluster } from "@/lib/redis/cluster.ts";
import { RedisUnavailableError } from "@/lib/redis/deadline.ts";
import { RedisBudgetStore } from "@/lib/render/budget.ts";
import type { RenderCache } from "@/lib/render/render_cache.ts";
import { rid } from "../_helpers/redis.ts";
import { LocalRedisCluster, withLocalCluster } from "../_helpers/redis_cluster.ts";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "../render/render_helpers.ts";

/** Far above any deadline: a call still running after this is a hang. */
const HANG_MS = 20_000;

Deno.test("cluster config - REDIS_CLUSTER_NODES and redis+cluster:// name the seed nodes", () => {
  const nodes = loadConfig({ REDIS_CLUSTER_NODES: " 10.0.0.5:7000, redis-b:7001,[::1]:7002 " });
  assert.deepEqual(nodes.redisCluster, {
    nodes: [
      { host: "10.0.0.5", port: 7000 },
      { host: "redis-b", port: 7001 },
      { host: "::1", port: 7002 },
    ],
  });
  assert.equal(nodes.redisUrl, undefined);
  const url = loadConfig({ REDIS_URL: "redis+cluster://app:s%3Acret@h1:7000,h2:7001/" });
  assert.deepEqual(url.redisCluster, {
    nodes: [{ host: "h1", port: 7000 }, { host: "h2", port: 7001 }],
    username: "app",
    password: "s:cret",
  });
  assert.equal(url.redisUrl, undefined);
  const single = loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" });
  assert.equal(single.redisUrl, "redis://127.0.0.1:6379");
  assert.equal(single.redisCluster, undefined);
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ REDIS_CLUSTER_NODES: "h1" }, /REDIS_CLUSTER_NODES/],
    [{ REDIS_CLUSTER_NODES: "h1:99999" }, /REDIS_CLUSTER_NODES/],
    [{ REDIS_CLUSTER_NODES: " , " }, /REDIS_CLUSTER_NODES/],
    [{ REDIS_CLUSTER_NODES: "h1:7000", REDIS_URL: "redis://h" }, /both set/],
    [{ REDIS_URL: "redis+cluster://" }, /REDIS_URL/],
    [{ REDIS_URL: "redis+cluster://h1:x" }, /REDIS_URL/],
    [{ REDIS_URL: "rediss+cluster://h1:7000" }, /TLS/],
  ];
  for (const [env, message] of bad) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
      JSON.stringify(env),
    );
  }
});

Deno.test("cluster - a server on a cluster mints, renders from L2, spends exact budgets, refuses revoked tokens", async (t) => {
  await withLocalCluster(async (cluster) => {
    const server = await startTestServer({
      env: { REDIS_URL: "", REDIS_CLUSTER_NODES: cluster.seeds },
    });
    try {
      const prefix = server.config.redisPrefix;
      const body = { dag: await finishedDag("plate") };
      const s = await setupRender(server.deps.kv, server.url, { budget: 3 });

      await t.step("readyz pings every master", async () => {
        const res = await fetch(`${server.url}/readyz`);
        const report = await res.json();
        assert.equal(res.status, 200, JSON.stringify(report));
        assert.equal(report.checks.redis, "ok");
      });

      await t.step("a render, then the same from L2 once L1 is cleared", async () => {
        const miss = await render(server.url, s.token, s.origin, body);
        assert.equal(miss.status, 200, await miss.clone().text());
        assert.equal((await miss.json()).cache, "miss");
        await eventually(async () => (await cluster.keys(`${prefix}render:*`)).length === 1);
        (server.deps.render!.cache as RenderCache).clearL1();
        const hit = await render(server.url, s.token, s.origin, body);
        assert.equal(hit.status, 200, await hit.clone().text());
        const fromL2 = await hit.json();
        assert.equal(fromL2.cache, "l2");
        assert.equal(fromL2.budget.remaining, 1);
      });

      await t.step("the budget is exact: 6 concurrent renders, 1 unit left, 1 served", async () => {
        const answers = await Promise.all(
          Array.from({ length: 6 }, () => render(server.url, s.token, s.origin, body)),
        );
        const statuses = answers.map((r) => r.status).sort();
        await Promise.all(answers.map((r) => r.body?.cancel()));
        assert.deepEqual(statuses, [200, 429, 429, 429, 429, 429]);
        const keys = await cluster.keys(`${prefix}budget:*`);
        assert.equal(keys.length, 1);
        assert.equal(await server.deps.redis!.get(keys[0]), "3", "3 units spent, no more");
      });

      await t.step(
        "a revoked key's tokens are refused, and stay refused after FLUSHALL",
        async () => {
          const other = await setupRender(server.deps.kv, server.url);
          await revokeSdkKey(server.deps.kv, other.keyId, {
            replica: server.deps.render!.revocations,
          });
          await expectProblem(
            await render(server.url, other.token, other.origin, body),
            401,
            "token_revoked",
          );
          await cluster.flushAll();
          await expectProblem(
            await render(server.url, other.token, other.origin, body),
            401,
            "token_revoked",
          );
        },
      );
    } finally {
      await server.close();
    }
  });
});

Deno.test("cluster - a stopped master fails its own slots closed within the deadline; the others serve; SIGCONT recovers", async () => {
  await withLocalCluster(async (cluster) => {
    const logs: string[] = [];
    const redis = await connectRedisCluster(
      { nodes: [{ host: "127.0.0.1", port: cluster.nodes[0].port }] }, // one seed is enough
      new Logger("info", (line) => logs.push(line)),
      { timeoutMs: 200 },
    );
    try {
      const prefix = `test:${rid(6)}:`;
      const budgets = new RedisBudgetStore(redis, prefix);
      const exp = Math.floor(Date.now() / 1000) + 600;
      // Setup, not the subject: on a loaded machine (CI runs many suites at once on 2 CPUs) the
      // client's first commands on fresh connections can miss the 200 ms deadline once; an open
      // is a SET NX, so trying again is safe.
      const tokens = await Promise.all(Array.from({ length: 30 }, async () => {
        const jti = rid(16);
        await eventually(async () => {
          await budgets.open(jti, 4, exp);
          return true;
        });
        return { jti, port: (await cluster.nodeOf(`${prefix}budget:{${jti}}`)).port };
      }));
      const victim = cluster.nodes[1];
      const onVictim = tokens.filter((t) => t.port === victim.port);
      const elsewhere = tokens.filter((t) => t.port !== victim.port);
      assert.ok(onVictim.length > 0 && elsewhere.length > 0, "30 tokens land on every master");
      await eventually(() => redisReachable(redis));

      cluster.pause(victim);
      const slowest: number[] = [];
      // A spend on the stopped master is tried once: it must be refused. One on a master that
      // answers goes through `spendSurely`: on a loaded machine (CI runs many suites at once on 2
      // CPUs) it can miss the 200 ms deadline once, typically on a connection the client just
      // replaced, and is then retried under the same idempotency key, so it still counts once.
      const spendAll = async () => {
        const started = performance.now();
        const results = await Promise.allSettled(
          tokens.map((t) =>
            hangGuard(
              t.port === victim.port
                ? budgets.spend(t.jti, 4, exp)
                : spendSurely(budgets, t.jti, exp),
            )
          ),
        );
        slowest.push(Math.round(performance.now() - started));
        return results;
      };
      for (const round of [1, 2]) {
        const results = await spendAll();
        tokens.forEach((t, i) => {
          const r = results[i];
          if (t.port === victim.port) {
            assert.equal(r.status, "rejected", `round ${round}: a spend on the stopped master`);
            const err = (r as PromiseRejectedResult).reason;
            assert.ok(err instanceof RedisUnavailableError, String(err));
            assert.equal(err.status, 503);
          } else {
            assert.equal(
              r.status,
              "fulfilled",
              `round ${round}: ${(r as PromiseRejectedResult).reason}`,
            );
            assert.deepEqual((r as PromiseFulfilledResult<unknown>).value, {
              allowed: true,
              remaining: 4 - round,
            });
          }
        });
      }
      assert.equal(await hangGuard(redisReachable(redis)), false, "readiness sees the master");
      // Mint rate limits on the stopped master's slots count in process meanwhile.
      const limiter = new MintRateLimiter({ redis, prefix });
      assert.equal((await hangGuard(limiter.consume(`k${rid()}`))).allowed, true);

      // Past the sockets' idle timeout (2 s here): the connection is replaced while stopped.
      await new Promise((r) => setTimeout(r, 2500));
      const third = await spendAll();
      tokens.forEach((t, i) => {
        const expected = t.port === victim.port ? "rejected" : "fulfilled";
        assert.equal(third[i].status, expected, "round 3");
      });

      cluster.resume(victim);
      // After SIGCONT a loaded machine can still miss the 200 ms deadline once (see spendSurely).
      for (const t of onVictim) {
        // The refused spends counted nothing.
        assert.deepEqual(await spendSurely(budgets, t.jti, exp), { allowed: true, remaining: 3 });
      }
      for (const t of elsewhere) {
        assert.deepEqual(await spendSurely(budgets, t.jti, exp), { allowed: true, remaining: 0 });
      }
      await eventually(() => redisReachable(redis));
      const node = `127.0.0.1:${victim.port}`;
      const about = logs.filter((l) => l.includes(node));
      assert.ok(about.some((l) => l.includes('"level":"warn"')), about.join("\n"));
      assert.ok(about.at(-1)?.includes("answers again"), about.join("\n"));
      console.log(`stopped master: every spend round settled in ${slowest.join(", ")} ms`);
    } finally {
      await closeRedis(redis);
    }
  });
});

Deno.test("cluster - a master lost for good: its replica takes over and is found without a restart", async () => {
  // Three masters with a replica each; a silent master is failed over after 1 s.
  const cluster = await LocalRedisCluster.start(3, { replicas: 1, nodeTimeoutMs: 1000 });
  const logs: string[] = [];
  const redis = await connectRedisCluster(
    { nodes: cluster.nodes.map(({ port }) => ({ host: "127.0.0.1", port })) },
    new Logger("info", (line) => logs.push(line)),
    { timeoutMs: 200 },
  );
  try {
    const prefix = `test:${rid(6)}:`;
    const budgets = new RedisBudgetStore(redis, prefix);
    const exp = Math.floor(Date.now() / 1000) + 600;
    const tokens = Array.from({ length: 12 }, () => rid(16));
    for (const jti of tokens) {
      await budgets.open(jti, 4, exp);
      assert.equal((await budgets.spend(jti, 4, exp)).allowed, true);
    }
    const victim = await cluster.nodeOf(`${prefix}budget:{${tokens[0]}}`);
    await cluster.waitForReplicas(); // asynchronous replication: the replica has every spend
    await cluster.kill(victim);
    // Refused (503) until the replica is promoted and the client has read the new slot map.
    // Each spend is retried with one idempotency key, so a refused try never counts twice.
    for (const jti of tokens) {
      assert.deepEqual(await spendSurely(budgets, jti, exp), { allowed: true, remaining: 2 });
    }
    assert.notEqual((await cluster.nodeOf(`${prefix}budget:{${tokens[0]}}`)).port, victim.port);
    await eventually(() => redisReachable(redis));
    assert.ok(
      logs.some((l) => l.includes("left the slot map") && l.includes(`:${victim.port}`)),
      logs.join("\n"),
    );
  } finally {
    await closeRedis(redis);
    await cluster.stop();
  }
});

/**
 * Spends one render of a 4-unit budget, retrying until Redis answers, as a client retrying a 503
 * with its `Idempotency-Key` does: a try that missed the client's deadline may still have run on
 * Redis, and the retry then answers `replayed` with the same remaining instead of paying twice.
 */
async function spendSurely(
  budgets: RedisBudgetStore,
  jti: string,
  exp: number,
): Promise<{ allowed: boolean; remaining: number | null }> {
  const idempotency = { key: rid(12), fingerprint: "retried spend" };
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    try {
      const { allowed, remaining } = await budgets.spend(jti, 4, exp, idempotency);
      return { allowed, remaining };
    } catch (err) {
      // Only "Redis did not answer" is retried; any other refusal is the test's failure.
      if (!(err instanceof RedisUnavailableError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** `promise`, or a failure after HANG_MS (a hang, never a timing assertion). */
async function hangGuard<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer after ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it holds (a node coming back takes a reconnect); fails after HANG_MS. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`still not true after ${HANG_MS} ms`);
}
