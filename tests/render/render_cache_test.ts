import assert from "node:assert/strict";
import { RenderCache } from "@/lib/render/render_cache.ts";
import { SingleFlight } from "@/lib/cache/single_flight.ts";
import { PreparedScene } from "@/lib/render/render_response_bytes.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { closeRedis, connectRedis } from "@/lib/redis/client.ts";
import { rid, withRedis } from "../_helpers/redis.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";

function scene(size = 10): Scene {
  return {
    parts: [{
      name: "p",
      color: "#112233",
      mesh: "a".repeat(64),
      instances: [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]],
    }],
    meshes: {
      ["a".repeat(64)]: {
        vertices: "A".repeat(size),
        min: [0, 0, 0],
        scale: [1 / 65535, 1 / 65535, 1 / 65535],
        indices: "B".repeat(size),
        vertexCount: 3,
        triangleCount: 1,
      },
    },
    bbox: { min: [0, 0, 0], max: [1, 1, 1] },
    triangles: 1,
    volume: 1,
  };
}

Deno.test("cache - miss, then L1, then L2 after L1 is dropped; concurrent misses evaluate once", async () => {
  await withRedis(async (redis, prefix) => {
    const cache = new RenderCache({ redis, prefix, log: new Logger("error", () => {}) });
    const key = rid(16);
    let evaluations = 0;
    const compute = async () => {
      evaluations++;
      await new Promise((r) => setTimeout(r, 30));
      return scene();
    };
    const first = await Promise.all(
      Array.from({ length: 10 }, () => cache.getOrCompute(key, compute)),
    );
    assert.equal(evaluations, 1, "single-flight: ten concurrent misses, one evaluation");
    assert.ok(first.every((r) => r.cache === "miss"));
    assert.equal((await cache.getOrCompute(key, compute)).cache, "l1");
    cache.clearL1();
    const fromL2 = await cache.getOrCompute(key, compute);
    assert.equal(fromL2.cache, "l2");
    assert.deepEqual(fromL2.scene.toScene(), scene());
    assert.equal(evaluations, 1);
    const ttl = await redis.ttl(`${prefix}render:v3:${key}`);
    assert.ok(ttl > 0, "L2 entries have a TTL");
  });
});

Deno.test("cache - L1 is bounded in bytes", async () => {
  const cache = new RenderCache({
    prefix: "x:",
    log: new Logger("error", () => {}),
    l1MaxBytes: 200_000,
  });
  for (let i = 0; i < 50; i++) {
    await cache.getOrCompute(`k${i}`, () => Promise.resolve(scene(20_000)));
  }
  const stats = cache.l1Stats();
  assert.ok(stats.bytes <= 200_000, `L1 holds ${stats.bytes} bytes`);
  assert.ok(stats.entries < 50);
});

Deno.test("cache - Redis down: L2 is skipped and renders go on", async () => {
  await withRedis(async (redis, prefix) => {
    const logs: string[] = [];
    const cache = new RenderCache({ redis, prefix, log: new Logger("warn", (l) => logs.push(l)) });
    await redis.close();
    for (let i = 0; i < 3; i++) {
      const r = await cache.getOrCompute(rid(16), () => Promise.resolve(scene()));
      assert.equal(r.cache, "miss");
    }
    assert.equal(
      logs.filter((l) => l.includes("L2 (Redis) unavailable")).length,
      1,
      "announced once",
    );
  });
});

Deno.test("cache - Redis stalled: L2 is skipped within the deadline, then used again", async () => {
  const server = await PrivateRedis.start();
  const redis = await connectRedis(server.url, new Logger("error", () => {}), { timeoutMs: 200 });
  try {
    const logs: string[] = [];
    const log = new Logger("info", (l) => logs.push(l));
    const cache = new RenderCache({ redis, prefix: "t:", log });
    const stored = rid(16);
    await cache.getOrCompute(stored, () => Promise.resolve(scene()));
    await eventually(async () => (await redis.exists(`t:render:v3:${stored}`)) === 1);
    cache.clearL1();

    server.pause();
    // L2 would have it, but Redis does not answer: evaluated instead, within the deadline.
    const stalled = await within(cache.getOrCompute(stored, () => Promise.resolve(scene())));
    assert.equal(stalled.cache, "miss");
    const other = await within(cache.getOrCompute(rid(16), () => Promise.resolve(scene())));
    assert.equal(other.cache, "miss");
    assert.equal(logs.filter((l) => l.includes("L2 (Redis) unavailable")).length, 1);

    server.resume();
    await eventually(async () => {
      cache.clearL1(); // a miss while the client finds its way back fills L1
      return (await cache.getOrCompute(stored, () => Promise.resolve(scene()))).cache === "l2";
    });
    assert.ok(logs.some((l) => l.includes("L2 (Redis) is back")));
  } finally {
    server.resume();
    await closeRedis(redis);
    await server.stop();
  }
});

/** `promise`, or a failure when it hangs (far past the 200 ms deadline). */
async function within<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("hung on a stalled Redis")), 20_000);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it holds; fails after 20 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 20_000; Date.now() < end;) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail("still not true after 20 s");
}

Deno.test("cache - single flight shares one run and forgets it afterwards", async () => {
  const flight = new SingleFlight<number>();
  let runs = 0;
  const fn = async () => {
    runs++;
    await new Promise((r) => setTimeout(r, 10));
    return 42;
  };
  const a = flight.run("k", fn);
  const b = flight.run("k", fn);
  assert.equal(a.shared, false);
  assert.equal(b.shared, true);
  assert.deepEqual(await Promise.all([a.promise, b.promise]), [42, 42]);
  assert.equal(flight.size, 0);
  await flight.run("k", fn).promise;
  assert.equal(runs, 2);
  // A failure is shared too, and not remembered.
  const failing = flight.run("f", () => Promise.reject(new Error("boom")));
  await assert.rejects(failing.promise, /boom/);
  assert.equal(flight.size, 0);
});

Deno.test("cache - a prefetched L2 read is used once, shared while on its way, skipped when L1 holds the key, and counted", async () => {
  await withRedis(async (redis, prefix) => {
    const log = new Logger("error", () => {});
    const writer = new RenderCache({ redis, prefix, log });
    const reader = new RenderCache({ redis, prefix, log });
    const key = rid(16);
    let evaluations = 0;
    const compute = () => {
      evaluations++;
      return Promise.resolve(scene(24));
    };
    assert.equal((await writer.getOrCompute(key, compute)).cache, "miss");
    assert.equal(writer.prefetch(key), undefined, "L1 holds it: nothing to read");
    // Another process's cache: the read starts early and is then handed in.
    const early = reader.prefetch(key);
    assert.ok(early);
    assert.deepEqual((await early.scene)?.toScene(), scene(24));
    const hit = await reader.getOrCompute(key, compute, early);
    assert.equal(hit.cache, "l2");
    assert.equal(evaluations, 1);
    assert.deepEqual(reader.counts(), { l1: 0, l2: 1, evaluations: 0 });
    assert.equal((await reader.getOrCompute(key, compute)).cache, "l1");
    // Identical requests in a burst share one read while it is on its way; a later one reads again.
    const fresh = new RenderCache({ redis, prefix, log });
    const first = fresh.prefetch(key);
    assert.ok(first);
    assert.equal(fresh.prefetch(key), first, "one GET for the burst");
    assert.deepEqual((await first.scene)?.toScene(), scene(24));
    const again = fresh.prefetch(key);
    assert.ok(again && again !== first, "an answered read is not kept");
    await again.scene;
    // A prefetch for another key is ignored.
    const other = rid(16);
    const stale = reader.prefetch(key) ??
      { key, scene: Promise.resolve(PreparedScene.fromScene(scene(24))), users: 1, used: false };
    assert.equal((await reader.getOrCompute(other, compute, stale)).cache, "miss");
    assert.equal(evaluations, 2);
    // While a key is being computed, joiners need no read of their own.
    const busy = rid(16);
    let release!: () => void;
    let started!: () => void;
    const computing = new Promise<void>((r) => started = r);
    const pending = reader.getOrCompute(busy, async () => {
      started();
      await new Promise<void>((r) => release = r);
      return scene(8);
    });
    await computing;
    assert.equal(reader.prefetch(busy), undefined);
    release();
    assert.equal((await pending).cache, "miss");
    // Without Redis there is nothing to prefetch.
    assert.equal(new RenderCache({ prefix, log }).prefetch(key), undefined);
  });
});

Deno.test("cache - RENDER_L1_MB configures the L1 bound (default 16 MiB)", async () => {
  const { loadConfig, ConfigError } = await import("@/lib/config.ts");
  assert.equal(loadConfig({}).renderL1Mb, 16);
  assert.equal(loadConfig({ RENDER_L1_MB: "64" }).renderL1Mb, 64);
  for (const bad of ["0", "-1", "1.5", "lots"]) {
    assert.throws(() => loadConfig({ RENDER_L1_MB: bad }), ConfigError);
  }
  // The bound is what the cache holds: scenes of ~0.2 MiB each in a 1 MiB L1.
  const cache = new RenderCache({
    prefix: "x:",
    log: new Logger("error", () => {}),
    l1MaxBytes: 1024 * 1024,
  });
  for (let i = 0; i < 20; i++) {
    await cache.getOrCompute(`k${i}`, () => Promise.resolve(scene(50_000)));
  }
  const { entries, bytes } = cache.l1Stats();
  assert.ok(bytes <= 1024 * 1024, `${bytes} bytes held`);
  assert.ok(entries >= 1 && entries < 20, `${entries} entries held`);
});
