/**
 * Cross-node single-flight: identical concurrent cold renders on different kernel nodes evaluate
 * once. In-process, concurrent misses of one key already share one flight (render_cache.ts); across
 * nodes, the node whose flight finds L2 empty first takes a Redis lease on the key
 * (`SET <prefix>render-lease:v1:<cacheKey> <nodeId> NX PX <ttl>`) and evaluates; the others wait
 * for the holder's scene in L2 instead of evaluating it again. The first attempt usually leaves
 * before the flight, with the request's L2 read (`attempt`, render_cache.ts `prefetch`), so the
 * claim then costs no round trip.
 *
 * - The holder renews the lease every third of its TTL while it evaluates (compare-and-expire), so
 *   the TTL is short (3 s) and a node that died or froze is detected within one TTL, however long
 *   its evaluation would have taken. It stores the scene in L2, deletes the lease if it is still
 *   its own (compare-and-delete: a lease that expired and was taken by another node is left
 *   alone) and publishes a notice (flight_notices.ts), the three in one pipeline (`releaseWith`); a
 *   write that fails after all is followed by a "failed" notice.
 * - A waiter wakes on the notice, or after a poll interval (25 ms doubling to 250 ms) as the safety
 *   net, and asks again: L2 and the lease together. The holder's scene ends the wait; a free lease
 *   (the holder died, or gave up without a notice) is taken and this node evaluates; a "failed"
 *   notice means evaluating here at once, without a lease, as every node did before leases. The
 *   wait is bounded (`maxWaitMs`: the render queue wait + the render deadline, how long a live
 *   holder can take); past it the node evaluates itself.
 * - Redis trouble never fails a render: a lease command that fails means evaluating locally, as
 *   without Redis. The budget was spent before any of this (render.ts): waiting is never free.
 *
 * Every key is a single key (no multi-key script), so it works on a Redis Cluster unchanged. Each
 * ask sends the lease attempt and an L2 read together: on one server they run in that order in one
 * pipeline, so a node that gets a lease just freed by a holder also gets that holder's scene and
 * does not evaluate it again; on a cluster they may reach two masters in either order, and a
 * holder that finishes between them can, rarely, be followed by a second evaluation (what happened
 * every time before leases). The same holds for a holder's L2 write and its lease's deletion, which
 * may also reach two masters.
 */
import type { Counter } from "../ops/metrics.ts";
import type { RedisClient } from "../redis/client.ts";
import { RedisScript } from "../redis/script.ts";
import type { FlightNotices, FlightOutcome } from "./flight_notices.ts";

/** Default lease lifetime in milliseconds; the holder renews it every third. */
export const DEFAULT_LEASE_TTL_MS = 3000;

/** First and longest pause between two asks of a waiter, in milliseconds. */
const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 250;

/** Why a node evaluates a key (the `lease` label of `kernel_render_evaluations_total`). */
export type EvaluationLease =
  /** This node took the lease at once. */
  | "held"
  /** This node took the lease after waiting: the holder died or gave up without a notice. */
  | "takeover"
  /** The holder announced it has no scene for L2: every waiter evaluates, unleased. */
  | "failed"
  /** The wait bound ran out while another node still held the lease. */
  | "timeout"
  /** A lease command failed (Redis unavailable): evaluated locally, unleased. */
  | "unavailable"
  /** No lease at all: the process has no Redis (one instance) or leases are off. */
  | "none";

/** How a wait for another node's lease ended (`kernel_render_lease_waits_total{outcome}`). */
export type LeaseWaitOutcome = "scene" | "takeover" | "failed" | "timeout" | "unavailable";

/** What `RenderLease.claim` decided for a key that missed L1 and L2. */
export type LeaseClaim<S> =
  | { kind: "scene"; scene: S }
  | { kind: "evaluate"; lease: EvaluationLease; held?: HeldLease };

/** Where the lease lives and how long a node waits. */
export interface RenderLeaseOptions {
  redis: RedisClient;
  prefix: string;
  /** This node's id, the lease's value (random when absent). */
  nodeId?: string;
  /** Wakes waiters when a holder is done (absent: waiters only poll). */
  notices?: FlightNotices;
  /** Lease lifetime in milliseconds (default 3000); renewed every third while evaluating. */
  ttlMs?: number;
  /** Longest wait for another node's evaluation before evaluating here, in milliseconds. */
  maxWaitMs: number;
  /** Counts waits by outcome (`outcome` label). */
  waits?: Pick<Counter, "inc">;
}

// KEYS[1] the lease, ARGV[1] this node's id, ARGV[2] the TTL: only the owner extends or deletes.
const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then " +
  "return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then " +
  "return redis.call('DEL', KEYS[1]) else return 0 end";

/** The Redis lease of one node on cache keys it evaluates. */
export class RenderLease {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #nodeId: string;
  readonly #notices?: FlightNotices;
  readonly #ttl: number;
  readonly #maxWait: number;
  readonly #waits?: Pick<Counter, "inc">;
  readonly #renew: RedisScript;
  readonly #release: RedisScript;
  #waiting = 0;

  /** Binds to `options.redis`; nothing is sent before the first claim. */
  constructor(options: RenderLeaseOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#nodeId = options.nodeId ?? crypto.randomUUID();
    this.#notices = options.notices;
    this.#ttl = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    this.#maxWait = options.maxWaitMs;
    this.#waits = options.waits;
    this.#renew = new RedisScript(this.#redis, RENEW);
    this.#release = new RedisScript(this.#redis, RELEASE);
  }

  /**
   * Takes the lease on `key` (evaluate here, then `held.release`), or waits for the node that
   * holds it and returns its scene as `readL2` reads it. Never throws: on Redis trouble, evaluate.
   * With `attempted`, the first ask was already made: that lease attempt (`attempt`), followed in
   * its round trip by an L2 read that found nothing.
   *
   * @example
   * ```ts
   * const claim = await lease.claim(key, () => readL2(key));
   * if (claim.kind === "scene") return claim.scene;
   * const scene = await evaluate();
   * const stored = await writeL2(key, scene);
   * await claim.held?.release(stored ? "stored" : "failed");
   * ```
   */
  async claim<S>(
    key: string,
    readL2: () => Promise<S | undefined>,
    attempted?: Promise<boolean | undefined>,
  ): Promise<LeaseClaim<S>> {
    const until = performance.now() + this.#maxWait;
    let pause = FIRST_POLL_MS;
    let waited = false;
    try {
      for (let asked = attempted;; asked = undefined) {
        // One ask: the lease attempt and the L2 read leave in the same tick (one round trip), the
        // read after the SET, so a lease freed by a holder that stored its scene finds the scene.
        const [taken, scene] = asked
          ? [await asked, undefined]
          : await Promise.all([this.attempt(key), readL2()]);
        if (scene !== undefined) {
          if (taken) await this.#drop(key);
          return this.#ended(waited, "scene", { kind: "scene", scene });
        }
        if (taken === undefined) {
          return this.#ended(waited, "unavailable", { kind: "evaluate", lease: "unavailable" });
        }
        if (taken) {
          const lease = waited ? "takeover" : "held";
          return this.#ended(waited, "takeover", {
            kind: "evaluate",
            lease,
            held: this.#hold(key),
          });
        }
        if (!waited) this.#waiting++;
        waited = true;
        const left = until - performance.now();
        if (left <= 0) return this.#ended(true, "timeout", { kind: "evaluate", lease: "timeout" });
        const notice = await this.#pause(key, Math.min(pause, left));
        pause = Math.min(2 * pause, MAX_POLL_MS);
        if (notice === "failed") {
          return this.#ended(true, "failed", { kind: "evaluate", lease: "failed" });
        }
      }
    } finally {
      if (waited) this.#waiting--;
    }
  }

  /**
   * Sends the lease attempt on `key` now, to share a round trip with other commands (send the L2
   * read after it): true when taken, false when another node holds it, undefined when Redis
   * failed. Hand it to `claim`, or to `dropIfTaken` when it is not wanted.
   *
   * @example
   * ```ts
   * const attempted = lease.attempt(key);
   * const scene = await readL2(key); // same round trip
   * if (scene) lease.dropIfTaken(key, attempted);
   * else await lease.claim(key, () => readL2(key), attempted);
   * ```
   */
  attempt(key: string): Promise<boolean | undefined> {
    return this.#take(key).catch(() => undefined);
  }

  /** Drops the lease `attempted` (an `attempt` on `key`) took, once it answers; not awaited. */
  dropIfTaken(key: string, attempted: Promise<boolean | undefined>): void {
    void attempted.then((taken) => taken ? this.#drop(key) : undefined);
  }

  /** Deletes the lease on `key` if it is still this node's (no notice: nothing was evaluated). */
  async #drop(key: string): Promise<void> {
    try {
      await this.#release.run([this.leaseKey(key)], [this.#nodeId]);
    } catch {
      // It expires by itself within one TTL.
    }
  }

  /** How many keys this node is waiting on now (for tests and metrics). */
  get waiting(): number {
    return this.#waiting;
  }

  /** The Redis key of the lease on `key`. */
  leaseKey(key: string): string {
    return `${this.#prefix}render-lease:v1:${key}`;
  }

  #ended<T>(waited: boolean, outcome: LeaseWaitOutcome, claim: T): T {
    if (waited) this.#waits?.inc({ outcome });
    return claim;
  }

  /** true: taken; false: another node holds it; rejects when Redis fails. */
  async #take(key: string): Promise<boolean> {
    const reply = await this.#redis.set(this.leaseKey(key), this.#nodeId, {
      condition: "NX",
      expiration: { type: "PX", value: this.#ttl },
    });
    return reply === "OK";
  }

  async #pause(key: string, ms: number): Promise<FlightOutcome | undefined> {
    if (this.#notices) return await this.#notices.next(key, ms);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return undefined;
  }

  #hold(key: string): HeldLease {
    const leaseKey = this.leaseKey(key);
    const timer = setInterval(() => {
      this.#renew.run([leaseKey], [this.#nodeId, String(this.#ttl)]).then((renewed) => {
        // Lost (it expired while this process stood still, and another node took it): stop.
        if (renewed === 0) clearInterval(timer);
      }, () => {
        // Redis trouble: the next renewal tries again; at worst another node evaluates too.
      });
    }, Math.max(1, Math.floor(this.#ttl / 3)));
    let released = false;
    const release = async (outcome: FlightOutcome) => {
      if (released) return;
      released = true;
      clearInterval(timer);
      // In one pipeline (one write, one round trip): a waiter woken by the notice asks L2 first,
      // where a stored scene already is, so the notice need not wait for the lease's deletion.
      await Promise.all([this.#drop(key), this.#notices?.publish(key, outcome)]);
    };
    return {
      release,
      releaseWith: (written) => {
        if (released) return;
        void release("stored");
        void written.then((ok) => ok ? undefined : this.#notices?.publish(key, "failed"));
      },
    };
  }
}

/** A lease this node holds while it evaluates. */
export interface HeldLease {
  /**
   * Stops renewing, deletes the lease if still this node's and tells the waiters whether the scene
   * is in L2 (`stored`) or not (`failed`); call once the L2 write settled, or not made. Never
   * throws.
   */
  release(outcome: FlightOutcome): Promise<void>;
  /**
   * `release("stored")` sent with the L2 write that stores the scene: call it in the tick that
   * sends `written` (the SET, true once stored), so the SET, the lease's deletion and the notice
   * leave in one pipeline, which one server runs in that order. A write that fails after all
   * (Redis out of memory) is followed by a `failed` notice: the nodes still waiting evaluate at
   * once, and one already woken by `stored` finds the lease free and takes it.
   */
  releaseWith(written: Promise<boolean>): void;
}
