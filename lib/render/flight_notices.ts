/**
 * The notification half of cross-node single-flight (render_lease.ts): when a lease holder has
 * stored its scene in L2 (or given up), it publishes `<cacheKey> <outcome>` on one channel per
 * Redis prefix, and every node wakes the request that waits for that key. One subscription per
 * process, not one per key: a SUBSCRIBE round trip per cold render would cost what the notice
 * saves, and a per-key channel subscribed after the waiter's check could miss the message.
 *
 * Classic PUBLISH/SUBSCRIBE works on one server and on a Redis Cluster alike (the cluster bus
 * forwards a message to every node; node-redis's cluster client keeps its own subscriber
 * connection). A notice is only a wake-up: a waiter also polls L2 and the lease with back-off, so a
 * message lost to a reconnect or a subscriber that never connected costs latency, never a hang.
 */
import type { Logger } from "../ops/logger.ts";
import { isRedisCluster, type RedisClient, type RedisServerClient } from "../redis/client.ts";

/** How a lease holder's flight ended: its scene is in L2, or it is not (failed, not storable). */
export type FlightOutcome = "stored" | "failed";

/** The process's subscription to the flight channel, and its waiters by cache key. */
export class FlightNotices {
  readonly #redis: RedisClient;
  readonly #channel: string;
  readonly #log: Logger;
  readonly #waiters = new Map<string, Set<(outcome: FlightOutcome) => void>>();
  readonly #listener = (message: string | Uint8Array) => this.#deliver(String(message));
  #subscriber?: RedisServerClient;
  #started = false;
  #closed = false;

  /** Binds to `redis` and the channel `<prefix>render-flight`; nothing is sent before `start`. */
  constructor(redis: RedisClient, prefix: string, log: Logger) {
    this.#redis = redis;
    this.#channel = `${prefix}render-flight`;
    this.#log = log;
  }

  /**
   * Subscribes in the background (once). Until the subscription is up, waiters rely on polling.
   *
   * @example
   * ```ts
   * const notices = new FlightNotices(redis, "app:", log);
   * notices.start();
   * const outcome = await notices.next(key, 250); // "stored", "failed" or undefined after 250 ms
   * ```
   */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#subscribe().catch((err) => {
      this.#log.warn("render flight notices unavailable; waiters poll Redis", { error: err });
    });
  }

  /** Announces that the flight of `key` ended with `outcome`; a failure is only logged. */
  async publish(key: string, outcome: FlightOutcome): Promise<void> {
    try {
      await this.#redis.publish(this.#channel, `${key} ${outcome}`);
    } catch {
      // Waiters poll: a lost notice costs at most one poll interval.
    }
  }

  /** The next notice for `key` within `ms`, or undefined when none came. */
  next(key: string, ms: number): Promise<FlightOutcome | undefined> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(key);
      if (!set) this.#waiters.set(key, set = new Set());
      const done = (outcome: FlightOutcome | undefined) => {
        clearTimeout(timer);
        set!.delete(done);
        if (set!.size === 0 && this.#waiters.get(key) === set) this.#waiters.delete(key);
        resolve(outcome);
      };
      const timer = setTimeout(() => done(undefined), ms);
      set.add(done);
    });
  }

  /** Unsubscribes and closes the subscriber connection. */
  async close(): Promise<void> {
    this.#closed = true;
    const redis = this.#redis;
    try {
      if (isRedisCluster(redis)) {
        if (this.#started && redis.isOpen) await redis.unsubscribe(this.#channel, this.#listener);
      } else if (this.#subscriber) {
        const subscriber = this.#subscriber;
        this.#subscriber = undefined;
        // destroy, not close: close waits for replies a stalled server never sends.
        if (subscriber.isOpen) subscriber.destroy();
      }
    } catch {
      // Closing at shutdown: nothing to report.
    }
  }

  async #subscribe(): Promise<void> {
    const redis = this.#redis;
    if (isRedisCluster(redis)) {
      await redis.subscribe(this.#channel, this.#listener);
      return;
    }
    // A connection in subscriber mode (RESP2) runs no other command: a dedicated one. node-redis
    // subscribes it again by itself after a reconnect.
    const subscriber = redis.duplicate();
    subscriber.on("error", () => {
      // The command connection's handler logs outages once; this one only must not throw.
    });
    this.#subscriber = subscriber;
    await subscriber.connect();
    if (this.#closed) {
      subscriber.destroy();
      return;
    }
    await subscriber.subscribe(this.#channel, this.#listener);
  }

  #deliver(message: string): void {
    const space = message.indexOf(" ");
    if (space < 0) return;
    const outcome = message.slice(space + 1);
    if (outcome !== "stored" && outcome !== "failed") return;
    const set = this.#waiters.get(message.slice(0, space));
    if (!set) return;
    for (const wake of [...set]) wake(outcome);
  }
}
