/**
 * Cross-node single-flight (lib/render/render_lease.ts) with real Redis: two `RenderCache`s, each
 * with its own connection, stand for two kernel nodes. One evaluation for both; the waiter gets the
 * holder's scene (woken by the notice, or by polling alone); a holder that died is taken over once
 * its lease expires; a wait that runs out, a holder that fails and a Redis that stalls all end in an
 * evaluation here, never in a hang; a holder whose lease expired leaves the next holder's alone.
 */
import assert from "node:assert/strict";
import { RenderCache } from "@/lib/render/render_cache.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { Metrics } from "@/lib/ops/metrics.ts";
import { closeRedis, connectRedis, type RedisClient } from "@/lib/redis/client.ts";
import { deleteRedisPrefix, rid, TEST_REDIS_URL } from "../_helpers/redis.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import { type LocalRedisCluster, withLocalCluster } from "../_helpers/redis_cluster.ts";
import { connectRedisCluster } from "@/lib/redis/cluster.ts";
import { createClient } from "redis";

const log = new Logger("error", () => {});
const HANG_GUARD_MS = 20_000;

function scene(tag: string): Scene {
  const mesh = "c".repeat(64);
  return {
    parts: [{
      name: tag,
      color: "#112233",
      mesh,
      instances: [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]],
    }],
    meshes: {
      [mesh]: {
        vertices: "A".repeat(12),
        min: [0, 0, 0],
        scale: [1 / 65535, 1 / 65535, 1 / 65535],
        indices: "B".repeat(12),
        vertexCount: 3,
        triangleCount: 1,
      },
    },
    bbox: { min: [0, 0, 0], max: [1, 1, 1] },
    triangles: 1,
    volume: 1,
  };
}

/** Waits until `probe()` holds (the hang guard throws). */
async function until(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const since = performance.now();
  while (!(await probe())) {
    if (performance.now() - since > HANG_GUARD_MS) throw new Error(`${what}: never happened`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A promise with its resolve and reject. */
function gate<T = void>() {
  let open!: (value: T) => void;
  let fail!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

/** One kernel node: a cache with its own connection and metrics. */
interface Node {
  cache: RenderCache;
  metrics: Metrics;
  redis: RedisClient;
}

/** Where the nodes' Redis is: the shared server, or a private Redis Cluster. */
interface Backend {
  connect(): Promise<RedisClient>;
  /** How many connections subscribe to `channel`, on every server. */
  subscribers(channel: string): Promise<number>;
}

const SERVER: Backend = {
  connect: () => connectRedis(TEST_REDIS_URL, log, { timeoutMs: 300 }),
  async subscribers(channel) {
    const client = createClient({ url: TEST_REDIS_URL });
    await client.connect();
    try {
      return (await client.pubSubNumSub(channel))[channel];
    } finally {
      await client.close();
    }
  },
};

function clusterBackend(cluster: LocalRedisCluster): Backend {
  return {
    connect: () =>
      connectRedisCluster({ nodes: [{ host: "127.0.0.1", port: cluster.nodes[0].port }] }, log, {
        timeoutMs: 300,
      }),
    // A classic subscription lives on one master, whichever node-redis picked.
    async subscribers(channel) {
      let sum = 0;
      for (const node of cluster.nodes) {
        const client = createClient({ url: `redis://127.0.0.1:${node.port}` });
        await client.connect();
        try {
          sum += (await client.pubSubNumSub(channel))[channel];
        } finally {
          await client.close();
        }
      }
      return sum;
    },
  };
}

function node(
  prefix: string,
  lease: { maxWaitMs?: number; ttlMs?: number; notices?: boolean },
  redis: RedisClient,
): Node {
  const metrics = new Metrics();
  const cache = new RenderCache({
    redis,
    prefix,
    log,
    lease: { maxWaitMs: 15_000, ...lease },
    metrics: { evaluations: metrics.renderEvaluations, leaseWaits: metrics.renderLeaseWaits },
  });
  return { cache, metrics, redis };
}

async function withNodes(
  count: number,
  lease: { maxWaitMs?: number; ttlMs?: number; notices?: boolean },
  fn: (nodes: Node[], prefix: string, redis: RedisClient) => Promise<void>,
  backend: Backend = SERVER,
): Promise<void> {
  const prefix = `lease:${rid(6)}:`;
  const nodes: Node[] = [];
  const admin = await backend.connect();
  try {
    for (let i = 0; i < count; i++) nodes.push(node(prefix, lease, await backend.connect()));
    if (lease.notices !== false) {
      // Every node's subscription is up, so a notice is never missed for want of it.
      const channel = `${prefix}render-flight`;
      await until("the nodes subscribed", async () => {
        return (await backend.subscribers(channel)) === count;
      });
    }
    await fn(nodes, prefix, admin);
  } finally {
    for (const n of nodes) {
      await n.cache.close();
      await closeRedis(n.redis);
    }
    await closeRedis(admin);
    if (backend === SERVER) await deleteRedisPrefix(TEST_REDIS_URL, prefix);
  }
}

const leaseKey = (prefix: string, key: string) => `${prefix}render-lease:v1:${key}`;

/** An evaluation that counts its runs and holds until the test settles `done`. */
function heldEvaluation() {
  const evaluating = gate();
  const done = gate<Scene>();
  let runs = 0;
  return {
    compute: () => {
      runs++;
      evaluating.open();
      return done.promise;
    },
    /** Resolves once `compute` was called. */
    started: evaluating.promise,
    done,
    get runs() {
      return runs;
    },
  };
}

/** Two nodes, one evaluation; the waiter gets the holder's scene. */
async function oneEvaluation(notices: boolean, backend: Backend = SERVER): Promise<void> {
  await withNodes(2, { notices }, async ([a, b], prefix, admin) => {
    const key = rid(16);
    const held = heldEvaluation();
    const onA = a.cache.getOrCompute(key, held.compute);
    await held.started;
    assert.ok(await admin.get(leaseKey(prefix, key)), "A holds the lease while it evaluates");
    const onB = Promise.all([
      b.cache.getOrCompute(key, held.compute),
      b.cache.getOrCompute(key, held.compute),
    ]);
    await until("B waits for A", () => b.cache.leaseWaiting() === 1);
    held.done.open(scene("one"));
    const [fromA, [fromB, fromB2]] = await Promise.all([onA, onB]);
    assert.equal(held.runs, 1);
    assert.equal(fromA.cache, "miss");
    assert.equal(fromB.cache, "l2");
    assert.equal(fromB2.scene, fromB.scene, "B's own callers share its one wait");
    assert.equal(fromB.scene.text, fromA.scene.text);
    assert.equal(a.metrics.renderEvaluations.get({ lease: "held" }), 1);
    assert.equal(b.metrics.renderLeaseWaits.get({ outcome: "scene" }), 1);
    assert.match(b.metrics.render(), /kernel_render_lease_waits_total\{outcome="scene"\} 1/);
    assert.deepEqual(b.cache.counts(), { l1: 0, l2: 1, evaluations: 0 });
    await until("A released its lease", async () => !(await admin.exists(leaseKey(prefix, key))));
  }, backend);
}

for (const notices of [true, false]) {
  Deno.test(`lease - two nodes, one evaluation; the waiter gets the holder's scene (${notices ? "notified" : "polling only"})`, () =>
    oneEvaluation(notices));
}

Deno.test("lease - a prefetch takes the lease in the L2 read's round trip: the miss evaluates holding it, with no lease command of its own", async () => {
  await withNodes(2, {}, async ([a, b], prefix, admin) => {
    const key = rid(16);
    const early = a.cache.prefetch(key);
    assert.ok(early?.lease, "the lease attempt left with the read");
    assert.equal(await early.scene, undefined);
    assert.equal(await early.lease, true);
    assert.ok(await admin.exists(leaseKey(prefix, key)), "held before getOrCompute is called");
    // The claim sends nothing more: a SET on A's connection now would be a second attempt.
    const sets: unknown[] = [];
    const spied = a.redis as unknown as { set: (...args: unknown[]) => Promise<unknown> };
    const set = spied.set.bind(spied);
    spied.set = (...args) => {
      sets.push(args[0]);
      return set(...args);
    };
    const held = heldEvaluation();
    const onA = a.cache.getOrCompute(key, held.compute, early);
    await held.started;
    assert.deepEqual(sets, [], "no lease attempt between the prefetch and the evaluation");
    // Node B, prefetching the same key, finds it held and waits for A's scene.
    const onB = b.cache.getOrCompute(key, held.compute, b.cache.prefetch(key));
    await until("B waits for A", () => b.cache.leaseWaiting() === 1);
    held.done.open(scene("early"));
    const [fromA, fromB] = await Promise.all([onA, onB]);
    assert.equal(held.runs, 1);
    assert.equal(fromA.cache, "miss");
    assert.equal(fromB.cache, "l2");
    assert.equal(a.metrics.renderEvaluations.get({ lease: "held" }), 1);
    assert.deepEqual(sets, [`${prefix}render:v3:${key}`], "then only the L2 write");
    await until("A released its lease", async () => !(await admin.exists(leaseKey(prefix, key))));
  });
});

Deno.test("lease - a prefetched lease that no evaluation uses is dropped: every holder refused, or an L2 hit", async () => {
  await withNodes(1, {}, async ([a], prefix, admin) => {
    // Identical requests share one prefetch while it is on its way; all of them are refused
    // (their spends failed).
    const refused = rid(16);
    const first = a.cache.prefetch(refused);
    assert.ok(first && a.cache.prefetch(refused) === first, "shared while on its way");
    a.cache.forgo(first);
    assert.equal(a.cache.prefetch(refused), first, "still shared while one request holds it");
    a.cache.forgo(first);
    a.cache.forgo(first);
    const later = a.cache.prefetch(refused);
    assert.ok(later && later !== first, "a forgone prefetch is not shared again");
    assert.equal(await first.lease, true);
    assert.equal(await later.lease, false, "sent while the first still held it");
    a.cache.forgo(later);
    await until("the unused lease was dropped", async () => {
      return !(await admin.exists(leaseKey(prefix, refused)));
    });
    // One of two requests is refused, the other evaluates under the lease the prefetch took.
    const kept = rid(16);
    const shared = a.cache.prefetch(kept);
    assert.equal(a.cache.prefetch(kept), shared);
    a.cache.forgo(shared);
    const held = heldEvaluation();
    const onA = a.cache.getOrCompute(kept, held.compute, shared);
    await held.started;
    assert.ok(await admin.exists(leaseKey(prefix, kept)), "the evaluation holds it");
    held.done.open(scene("kept"));
    assert.equal((await onA).cache, "miss");
    assert.equal(a.metrics.renderEvaluations.get({ lease: "held" }), 1);
    await until("released after the L2 write", async () => {
      return !(await admin.exists(leaseKey(prefix, kept)));
    });
    // A scene already in L2: the lease the prefetch took is dropped, and nothing evaluates.
    await new Promise((r) => setTimeout(r, 50));
    const other = node(prefix, {}, a.redis);
    const hit = other.cache.prefetch(kept);
    assert.equal(await hit?.lease, true);
    const got = await other.cache.getOrCompute(kept, () => {
      throw new Error("must not evaluate");
    }, hit);
    assert.equal(got.cache, "l2");
    await until("the L2 hit dropped its lease", async () => {
      return !(await admin.exists(leaseKey(prefix, kept)));
    });
    await other.cache.close();
  });
});

Deno.test("lease - a holder that died: the waiter takes the lease once it expires and evaluates", async () => {
  await withNodes(1, {}, async ([b], prefix, admin) => {
    const key = rid(16);
    // A node that took the lease and died: nobody renews or releases it.
    await admin.set(leaseKey(prefix, key), "dead-node", { expiration: { type: "PX", value: 400 } });
    let evaluations = 0;
    const got = await b.cache.getOrCompute(key, () => {
      evaluations++;
      return Promise.resolve(scene("taken-over"));
    });
    assert.equal(got.cache, "miss");
    assert.equal(evaluations, 1);
    assert.equal(b.metrics.renderLeaseWaits.get({ outcome: "takeover" }), 1);
    assert.equal(b.metrics.renderEvaluations.get({ lease: "takeover" }), 1);
    await until("B released the lease it took", async () => {
      return !(await admin.exists(leaseKey(prefix, key)));
    });
    // The scene went to L2 before the lease was released: a third node reads it.
    assert.ok(await admin.exists(`${prefix}render:v3:${key}`));
  });
});

Deno.test("lease - a wait that runs out evaluates here and leaves the holder's lease alone", async () => {
  await withNodes(1, { maxWaitMs: 300 }, async ([b], prefix, admin) => {
    const key = rid(16);
    // A live holder that takes longer than the wait bound (its lease outlives the test).
    await admin.set(leaseKey(prefix, key), "slow-node", {
      expiration: { type: "PX", value: 60_000 },
    });
    let evaluations = 0;
    const got = await b.cache.getOrCompute(key, () => {
      evaluations++;
      return Promise.resolve(scene("own"));
    });
    assert.equal(got.cache, "miss");
    assert.equal(evaluations, 1);
    assert.equal(b.metrics.renderLeaseWaits.get({ outcome: "timeout" }), 1);
    assert.equal(b.metrics.renderEvaluations.get({ lease: "timeout" }), 1);
    assert.equal(await admin.get(leaseKey(prefix, key)), "slow-node");
  });
});

/** A holder whose evaluation fails: the waiter evaluates. */
async function holderFails(notices: boolean, backend: Backend = SERVER): Promise<void> {
  await withNodes(2, { notices }, async ([a, b], prefix, admin) => {
    const key = rid(16);
    const held = heldEvaluation();
    const onA = a.cache.getOrCompute(key, held.compute);
    await held.started;
    let evaluations = 0;
    const onB = b.cache.getOrCompute(key, () => {
      evaluations++;
      return Promise.resolve(scene("b"));
    });
    await until("B waits for A", () => b.cache.leaseWaiting() === 1);
    held.done.fail(Object.assign(new Error("worker lost"), { code: "internal_error" }));
    await assert.rejects(onA, /worker lost/);
    const fromB = await onB;
    assert.equal(fromB.cache, "miss");
    assert.equal(evaluations, 1);
    // With notices B wakes at A's "failed" notice, unless its poll comes first in the moment
    // between A dropping the lease and publishing (release drops, then tells): then it takes the
    // freed lease. Either way B evaluates once.
    const waits = (outcome: string) => b.metrics.renderLeaseWaits.get({ outcome });
    const outcome = notices && waits("takeover") === 0 ? "failed" : "takeover";
    assert.equal(waits(outcome), 1);
    assert.equal(waits("failed") + waits("takeover"), 1);
    assert.equal(b.metrics.renderEvaluations.get({ lease: outcome }), 1);
    await until("no lease left", async () => !(await admin.exists(leaseKey(prefix, key))));
  }, backend);
}

for (const notices of [true, false]) {
  Deno.test(`lease - a holder whose evaluation fails: the waiter evaluates (${notices ? "at the notice" : "taking the freed lease"})`, () =>
    holderFails(notices));
}

/** Logs each call of `names` on `redis` and its end: `<name>:sent`, then `answered` or `failed`. */
function spyCommands(redis: RedisClient, names: string[], log: string[]): void {
  const spied = redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of names) {
    const original = spied[name].bind(spied);
    spied[name] = (...args) => {
      log.push(`${name}:sent`);
      return original(...args).then(
        (value) => (log.push(`${name}:answered`), value),
        (err) => {
          log.push(`${name}:failed`);
          throw err;
        },
      );
    };
  }
}

Deno.test("lease - the holder's L2 write, its lease's release and the notice leave in one round trip", async () => {
  // A long lease: no renewal (an EVALSHA of its own) while the commands are logged.
  await withNodes(2, { ttlMs: 60_000 }, async ([a, b], prefix, admin) => {
    const key = rid(16);
    const held = heldEvaluation();
    const onA = a.cache.getOrCompute(key, held.compute);
    await held.started;
    const onB = b.cache.getOrCompute(key, held.compute);
    await until("B waits for A", () => b.cache.leaseWaiting() === 1);
    const sent: string[] = [];
    spyCommands(a.redis, ["set", "evalSha", "publish"], sent);
    held.done.open(scene("one trip"));
    const [fromA, fromB] = await Promise.all([onA, onB]);
    assert.equal(fromA.cache, "miss");
    assert.equal(fromB.cache, "l2", "the waiter woken by the notice found the scene in L2");
    assert.equal(held.runs, 1);
    await until("A's commands answered", () => sent.length === 6);
    assert.deepEqual(
      sent.slice(0, 3),
      ["set:sent", "evalSha:sent", "publish:sent"],
      "the release and the notice were sent before the write's answer came",
    );
    assert.equal(await admin.exists(leaseKey(prefix, key)), 0);
  });
});

Deno.test('lease - a holder whose L2 write fails after its notice also says "failed": the waiter evaluates', async () => {
  await withNodes(2, {}, async ([a, b], prefix) => {
    const key = rid(16);
    const notices: string[] = [];
    const listener = createClient({ url: TEST_REDIS_URL });
    await listener.connect();
    try {
      await listener.subscribe(`${prefix}render-flight`, (message) => notices.push(message));
      const held = heldEvaluation();
      const onA = a.cache.getOrCompute(key, held.compute);
      await held.started;
      const onB = b.cache.getOrCompute(key, held.compute);
      await until("B waits for A", () => b.cache.leaseWaiting() === 1);
      // A's SET is refused as a Redis out of memory refuses it; its other commands go through.
      const spied = a.redis as unknown as { set: (...args: unknown[]) => Promise<unknown> };
      spied.set = () => Promise.reject(new Error("OOM command not allowed"));
      held.done.open(scene("unstored"));
      const [fromA, fromB] = await Promise.all([onA, onB]);
      assert.equal(fromA.cache, "miss");
      assert.equal(fromB.cache, "miss", "B evaluated: there was no scene in L2 to wait for");
      assert.equal(held.runs, 2);
      await until("both notices heard", () => notices.length >= 2);
      assert.deepEqual(notices.slice(0, 2), [`${key} stored`, `${key} failed`]);
    } finally {
      await listener.close();
    }
  });
});

Deno.test("lease - a holder whose lease expired and was taken leaves the new holder's lease alone", async () => {
  await withNodes(1, { ttlMs: 150 }, async ([a], prefix, admin) => {
    const key = rid(16);
    const held = heldEvaluation();
    const onA = a.cache.getOrCompute(key, held.compute);
    await held.started;
    // A's lease is renewed while it evaluates; another node overwrites it as if it had expired
    // while A stood still, and took it.
    await admin.set(leaseKey(prefix, key), "next-node", {
      expiration: { type: "PX", value: 60_000 },
    });
    // A renewal sees the lease is no longer A's and stops; the lease keeps its own TTL.
    await new Promise((r) => setTimeout(r, 200));
    assert.ok((await admin.pTTL(leaseKey(prefix, key))) > 50_000, "A did not renew it");
    held.done.open(scene("a"));
    assert.equal((await onA).cache, "miss");
    await until(
      "A's scene in L2",
      async () => (await admin.exists(`${prefix}render:v3:${key}`)) === 1,
    );
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await admin.get(leaseKey(prefix, key)), "next-node");
  });
});

Deno.test("lease - Redis stalled: the render evaluates locally, unleased, within the deadlines", async () => {
  const server = await PrivateRedis.start();
  const prefix = `lease:${rid(6)}:`;
  const b = node(prefix, {}, await connectRedis(server.url, log, { timeoutMs: 300 }));
  try {
    server.pause();
    let evaluations = 0;
    const got = await b.cache.getOrCompute(rid(16), () => {
      evaluations++;
      return Promise.resolve(scene("local"));
    });
    assert.equal(got.cache, "miss");
    assert.equal(evaluations, 1);
    assert.equal(b.metrics.renderEvaluations.get({ lease: "unavailable" }), 1);
    assert.equal(b.metrics.renderLeaseWaits.get({ outcome: "unavailable" }), 0, "never waited");
  } finally {
    server.resume();
    await b.cache.close();
    await closeRedis(b.redis);
    await server.stop();
  }
});

Deno.test("lease - on a Redis Cluster: one evaluation for two nodes, and the notices reach every node", async (t) => {
  await withLocalCluster(async (cluster) => {
    const backend = clusterBackend(cluster);
    await t.step("the waiter gets the holder's scene", () => oneEvaluation(true, backend));
    await t.step("a failed holder's notice wakes the waiter", () => holderFails(true, backend));
  });
});
