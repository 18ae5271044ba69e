/**
 * The two-level render cache (spec 1, 4.2 step 5): L1 an in-process LRU bounded in bytes, L2
 * Redis with a TTL, both keyed by `sha256(kernelVersion + "\n" + dagHash)`. Concurrent identical
 * misses evaluate once. Redis trouble never fails a render: L2 is skipped (and logged once per
 * outage) and the scene is computed. A read from a stalled Redis gives up at `REDIS_TIMEOUT_MS`
 * (lib/redis/deadline.ts), and at once after the first miss, so a miss costs at most that.
 * Across nodes, a miss of both levels takes a Redis lease before evaluating, and a node that finds
 * another holding it waits for that node's scene in L2 (render_lease.ts).
 */
import { LRUCache } from "lru-cache";
import type { CacheLevel } from "../dag/render_response.ts";
import { PreparedScene } from "./render_response_bytes.ts";
import { meshEncoderReady } from "../kernel/mesh_encoding.ts";
import type { Scene } from "../dag/scene.ts";
import type { Logger } from "../ops/logger.ts";
import type { RedisClient } from "../redis/client.ts";
import { SingleFlight } from "../cache/single_flight.ts";
import type { Counter } from "../ops/metrics.ts";
import { FlightNotices } from "./flight_notices.ts";
import { type HeldLease, RenderLease } from "./render_lease.ts";

/** How often each level answered and how many evaluations ran. */
export interface RenderCacheCounts {
  l1: number;
  l2: number;
  /** Calls of `compute` (a shared single-flight miss counts once). */
  evaluations: number;
}

/**
 * An L2 read started early, with leases the lease attempt sent just before it (see
 * `RenderCache.prefetch`); shared by identical requests while on its way.
 */
export interface L2Prefetch {
  key: string;
  scene: Promise<PreparedScene | undefined>;
  /** The lease attempt (`RenderLease.attempt`) sent before the read, when leases are on. */
  lease?: Promise<boolean | undefined>;
  /** Requests holding it that have not handed it back (`getOrCompute` or `forgo`). */
  users: number;
  /**
   * Whether its lease attempt is accounted for: an evaluation's flight took it over (and so its
   * release), or it was dropped when every request forwent it. Either way no flight uses it again.
   */
  used: boolean;
}

/** Sizes and lifetimes of the cache levels. */
export interface RenderCacheOptions {
  redis?: RedisClient;
  prefix: string;
  log: Logger;
  /** L1 bound in bytes (the serialized scenes plus a small overhead each). Default 16 MiB. */
  l1MaxBytes?: number;
  /** L2 time to live in seconds. Default 7 days. */
  l2TtlSeconds?: number;
  /** Largest scene stored in L2, in characters of JSON. Default 32 MiB. */
  l2MaxBytes?: number;
  /**
   * Cross-node single-flight (render_lease.ts), on when `redis` is: the longest wait for another
   * node's evaluation in ms (required with `redis`: the render queue wait + deadline), the lease
   * TTL (default 3000 ms), and whether waiters are woken by notices (default true) or only poll.
   */
  lease?: { maxWaitMs: number; ttlMs?: number; notices?: boolean };
  /** Counts evaluations by `lease` and cross-node waits by `outcome` (lib/ops/metrics.ts). */
  metrics?: { evaluations: Pick<Counter, "inc">; leaseWaits: Pick<Counter, "inc"> };
}

/** The L1/L2 cache with single-flight evaluation. */
export class RenderCache {
  readonly #l1: LRUCache<string, PreparedScene>;
  readonly #redis?: RedisClient;
  readonly #prefix: string;
  readonly #log: Logger;
  readonly #ttl: number;
  readonly #l2Max: number;
  readonly #flight = new SingleFlight<{ scene: PreparedScene; cache: CacheLevel }>();
  /** L2 reads started by `prefetch` and not answered yet, by key (shared by identical requests). */
  readonly #prefetching = new Map<string, L2Prefetch>();
  readonly #counts: RenderCacheCounts = { l1: 0, l2: 0, evaluations: 0 };
  readonly #lease?: RenderLease;
  readonly #notices?: FlightNotices;
  readonly #evaluations?: Pick<Counter, "inc">;
  #l2Down = false;

  /** Creates the cache; without `redis` only L1 exists. */
  constructor(options: RenderCacheOptions) {
    this.#l1 = new LRUCache<string, PreparedScene>({
      maxSize: options.l1MaxBytes ?? 16 * 1024 * 1024,
      sizeCalculation: (prepared) => prepared.size,
    });
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#log = options.log;
    this.#ttl = options.l2TtlSeconds ?? 7 * 24 * 3600;
    this.#l2Max = options.l2MaxBytes ?? 32 * 1024 * 1024;
    this.#evaluations = options.metrics?.evaluations;
    if (this.#redis && options.lease) {
      if (options.lease.notices !== false) {
        this.#notices = new FlightNotices(this.#redis, this.#prefix, this.#log);
        this.#notices.start();
      }
      this.#lease = new RenderLease({
        redis: this.#redis,
        prefix: this.#prefix,
        notices: this.#notices,
        ttlMs: options.lease.ttlMs,
        maxWaitMs: options.lease.maxWaitMs,
        waits: options.metrics?.leaseWaits,
      });
    }
  }

  /**
   * The scene for `key` from L1, else L2, else `compute()` (once for all concurrent callers);
   * a computed or L2 scene is serialized once and stored in the levels above it. Every caller
   * of one single-flight miss gets the same `PreparedScene`.
   *
   * @example
   * ```ts
   * const { scene, cache } = await renderCache.getOrCompute(key, () => pool.evaluate(dag));
   * ```
   */
  async getOrCompute(
    key: string,
    compute: () => Promise<Scene>,
    prefetched?: L2Prefetch,
  ): Promise<{ scene: PreparedScene; cache: CacheLevel }> {
    try {
      return await this.#getOrCompute(key, compute, prefetched);
    } finally {
      if (prefetched) this.forgo(prefetched);
    }
  }

  async #getOrCompute(
    key: string,
    compute: () => Promise<Scene>,
    prefetched?: L2Prefetch,
  ): Promise<{ scene: PreparedScene; cache: CacheLevel }> {
    const hit = this.#l1.get(key);
    if (hit) {
      this.#counts.l1++;
      return { scene: hit, cache: "l1" };
    }
    return await this.#flight.run(key, async () => {
      const early = prefetched?.key === key && !prefetched.used ? prefetched : undefined;
      // This flight answers for the early lease attempt now: it claims with it or drops it.
      if (early) early.used = true;
      const fromL2 = await (early ? early.scene : this.#l2Get(key));
      if (fromL2) {
        if (early?.lease) this.#lease?.dropIfTaken(key, early.lease);
        this.#counts.l2++;
        this.#l1.set(key, fromL2);
        return { scene: fromL2, cache: "l2" as const };
      }
      // Another node may be evaluating it: wait for its scene, or take the lease.
      const claim = this.#lease
        ? await this.#lease.claim(key, () => this.#l2Get(key), early?.lease)
        : { kind: "evaluate" as const, lease: "none" as const, held: undefined };
      if (claim.kind === "scene") {
        this.#counts.l2++;
        this.#l1.set(key, claim.scene);
        return { scene: claim.scene, cache: "l2" as const };
      }
      this.#counts.evaluations++;
      this.#evaluations?.inc({ lease: claim.lease });
      let prepared: PreparedScene;
      try {
        const computed = await compute();
        await meshEncoderReady(); // the binary form codes instance transforms
        prepared = PreparedScene.fromScene(computed);
      } catch (err) {
        void claim.held?.release("failed");
        throw err;
      }
      this.#l1.set(key, prepared);
      this.#store(key, prepared.text, claim.held);
      return { scene: prepared, cache: "miss" as const };
    }).promise;
  }

  /**
   * Starts the L2 read of `key` now unless L1 holds it, so that it shares a round trip with other
   * Redis work of the request (node-redis pipelines commands sent in the same tick), and with
   * leases the lease attempt before it, so that a miss of both levels needs no round trip of its
   * own before evaluating. Hand the result to `getOrCompute`, or to `forgo` when the request is
   * refused first: a lease taken for requests that all forgo it is dropped.
   *
   * @example
   * ```ts
   * const early = cache.prefetch(key);
   * const spend = await budgets.spend(jti, budget, exp); // same round trip as the L2 GET
   * if (!spend.allowed) cache.forgo(early);
   * const { scene } = await cache.getOrCompute(key, evaluate, early);
   * ```
   */
  prefetch(key: string): L2Prefetch | undefined {
    // Nothing to read when L1 holds it, or when a caller is already computing it; a read already
    // on its way is shared (a burst of identical requests sends one GET, not one each).
    if (!this.#redis || this.#l1.has(key) || this.#flight.has(key)) return undefined;
    const pending = this.#prefetching.get(key);
    if (pending) {
      pending.users++;
      return pending;
    }
    // The lease attempt before the read: a lease freed by a holder that stored its scene is
    // followed by that scene (render_lease.ts).
    const lease = this.#lease?.attempt(key);
    const read: L2Prefetch = { key, scene: this.#l2Get(key), lease, users: 1, used: false };
    this.#prefetching.set(key, read);
    read.scene.finally(() => {
      if (this.#prefetching.get(key) === read) this.#prefetching.delete(key);
    });
    return read;
  }

  /**
   * Hands back a prefetch that will not reach `getOrCompute` (the request was refused); once
   * every request that held it did so and no evaluation used it, its lease, if taken, is dropped.
   */
  forgo(prefetched: L2Prefetch | undefined): void {
    if (!prefetched || --prefetched.users > 0 || prefetched.used) return;
    prefetched.used = true;
    // Not shared any more: a request that came now would hold a lease that is being dropped.
    if (this.#prefetching.get(prefetched.key) === prefetched) {
      this.#prefetching.delete(prefetched.key);
    }
    if (prefetched.lease) this.#lease?.dropIfTaken(prefetched.key, prefetched.lease);
  }

  /** Number of scenes and bytes held in L1 (for metrics and tests). */
  l1Stats(): { entries: number; bytes: number } {
    return { entries: this.#l1.size, bytes: this.#l1.calculatedSize };
  }

  /** Hits per level and evaluations started since the cache was built (single-flight shares one). */
  counts(): RenderCacheCounts {
    return { ...this.#counts };
  }

  /** Drops everything from L1 (tests, memory pressure). */
  clearL1(): void {
    this.#l1.clear();
  }

  /** How many keys this node waits on for another node's evaluation now (tests, metrics). */
  leaseWaiting(): number {
    return this.#lease?.waiting ?? 0;
  }

  /** Stops the flight notices' subscription (the Redis client itself is the caller's). */
  async close(): Promise<void> {
    await this.#notices?.close();
  }

  async #l2Get(key: string): Promise<PreparedScene | undefined> {
    if (!this.#redis) return undefined;
    try {
      const text = await this.#redis.get(this.#l2Key(key));
      this.#l2Up();
      if (text) await meshEncoderReady();
      return text ? PreparedScene.fromText(text) : undefined;
    } catch (err) {
      this.#l2Failed(err);
      return undefined;
    }
  }

  /**
   * Writes a computed scene to L2 and frees the lease its evaluation held, in one pipeline
   * (`HeldLease.releaseWith`). Not awaited: the response need not wait for Redis (a failure is
   * logged by #l2Set, and this client sends a later GET of the key after the SET, so it reads its
   * own write).
   */
  #store(key: string, text: string, held: HeldLease | undefined): void {
    if (text.length > this.#l2Max) {
      void held?.release("failed"); // too large for L2: the waiters evaluate at once
      return;
    }
    const written = this.#l2Set(key, text); // with no lease held, too
    held?.releaseWith(written);
  }

  /** Whether `text` is now in L2 (`#store` has checked its size). */
  async #l2Set(key: string, text: string): Promise<boolean> {
    if (!this.#redis) return false;
    try {
      await this.#redis.set(this.#l2Key(key), text, {
        expiration: { type: "EX", value: this.#ttl },
      });
      this.#l2Up();
      return true;
    } catch (err) {
      this.#l2Failed(err);
      return false;
    }
  }

  /**
   * `v3`: the value is `PreparedScene.text`, the JSON response up to its per-request members (v2
   * held it from `"scene"` to `omitted`; v1 the scene's own JSON; both now unread).
   */
  #l2Key(key: string): string {
    return `${this.#prefix}render:v3:${key}`;
  }

  #l2Up(): void {
    if (this.#l2Down) this.#log.info("render cache L2 (Redis) is back");
    this.#l2Down = false;
  }

  #l2Failed(err: unknown): void {
    if (!this.#l2Down) {
      this.#log.warn("render cache L2 (Redis) unavailable; serving from L1 and evaluation", {
        error: err,
      });
    }
    this.#l2Down = true;
  }
}
