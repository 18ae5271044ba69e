/**
 * The Redis connection: hot shared state (rate limits, budgets, revocations, the L2 cache).
 * Commands fail fast while the server is unreachable instead of queueing, so callers can decide
 * between failing closed (budgets) and degrading (rate limits, cache).
 */
import { createClient } from "redis";
import type { Logger } from "../ops/logger.ts";

/** The node-redis client type used across the product. */
export type RedisClient = ReturnType<typeof createClient>;

/**
 * Connects to Redis at `url`; reconnects in the background with capped back-off.
 *
 * @example
 * ```ts
 * const redis = await connectRedis("redis://127.0.0.1:6379", log);
 * await redis.ping();
 * ```
 */
export async function connectRedis(url: string, log: Logger): Promise<RedisClient> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    },
  });
  let reported = false;
  client.on("error", (err: Error) => {
    // node-redis emits on every failed reconnect; one line per outage is enough.
    if (!reported) log.warn("redis unavailable", { error: err.message });
    reported = true;
  });
  client.on("ready", () => {
    if (reported) log.info("redis reconnected");
    reported = false;
  });
  await client.connect();
  return client;
}

/** Whether Redis answers a PING within `timeoutMs`. */
export async function redisReachable(client: RedisClient, timeoutMs = 1000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
    });
    return (await Promise.race([client.ping(), timeout])) === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
