/**
 * The Redis connection: hot shared state (rate limits, budgets, render quotas, the L2 cache), to
 * one server (`REDIS_URL`, here) or a Redis Cluster (`REDIS_CLUSTER_NODES`, cluster.ts); the rest
 * of the product holds a `RedisClient`, either one, and sends the same commands to both.
 * Every command settles within the deadline (`REDIS_TIMEOUT_MS`, deadline.ts), whether Redis
 * refuses connections or accepts them and never answers; while it is unreachable or stalled,
 * commands fail at once instead of queueing, so callers can decide between failing closed
 * (budgets, quotas) and degrading (rate limits, the sign-in throttle, the L2 cache). The
 * connection replaces itself: a stalled one is dropped once idle, a closed one reconnects.
 */
import { createClient, type createCluster } from "redis";
import type { Logger } from "../ops/logger.ts";
import { enforceDeadlines } from "./deadline.ts";

/** A node-redis client of one Redis server. */
export type RedisServerClient = ReturnType<typeof createClient>;

/** A node-redis client of a Redis Cluster (lib/redis/cluster.ts). */
export type RedisClusterClient = ReturnType<typeof createCluster>;

/**
 * The product's Redis: one server or a cluster. Callers use commands that route by their keys
 * (every multi-key command and script keeps its keys in one hash slot: `{…}` tags), and
 * `isRedisCluster` for the rest (scans, readiness).
 */
export type RedisClient = RedisServerClient | RedisClusterClient;

/** Whether `redis` is a cluster client (its commands go to the master of their key's slot). */
export function isRedisCluster(redis: RedisClient): redis is RedisClusterClient {
  return "nodeClient" in redis;
}

/** Default deadline of one Redis command, in milliseconds (`REDIS_TIMEOUT_MS`). */
export const DEFAULT_REDIS_TIMEOUT_MS = 500;

/**
 * Connects to Redis at `url`; reconnects in the background with capped back-off.
 *
 * @example
 * ```ts
 * const redis = await connectRedis("redis://127.0.0.1:6379", log, { timeoutMs: 500 });
 * await redis.ping(); // "PONG", or RedisUnavailableError within 500 ms
 * ```
 */
export async function connectRedis(
  url: string,
  log: Logger,
  options: { timeoutMs?: number } = {},
): Promise<RedisServerClient> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  const client = createClient({ url, ...connectionOptions(timeoutMs) });
  let outage = false;
  const down = (msg: string, fields: Record<string, unknown>) => {
    // node-redis emits on every failed reconnect and failed PING; one line per outage is enough.
    if (!outage) log.warn(msg, fields);
    outage = true;
  };
  const up = (msg: string) => {
    if (outage) log.info(msg);
    outage = false;
  };
  client.on("error", (err: Error) => down("redis unavailable", { error: err.message }));
  client.on("ready", () => up("redis reconnected"));
  enforceDeadlines(client, timeoutMs, {
    stalled: (ms) =>
      down("redis not answering; its commands fail at once until it does", { timeoutMs: ms }),
    answered: () => up("redis answers again"),
  });
  await client.connect();
  return client;
}

/**
 * The connection options of every socket to Redis, one server's or each cluster node's, for a
 * command deadline of `timeoutMs`.
 */
export function connectionOptions(timeoutMs: number) {
  // An idle healthy connection still sees a PING reply every pingInterval, so only a connection
  // that received nothing for two intervals (a stalled server, a dead peer, a handshake that
  // never completes) hits socketTimeout, which destroys it and reconnects.
  const pingInterval = Math.max(1000, 4 * timeoutMs);
  return {
    disableOfflineQueue: true,
    pingInterval,
    // No per-command `timeout`: deadline.ts bounds the wait for every reply and, at a miss, drops
    // the commands still unwritten, so none is sent after its caller was told it failed.
    socket: {
      connectTimeout: Math.max(2000, timeoutMs),
      socketTimeout: 2 * pingInterval,
      // Always a number: node-redis's default gives up on a socket timeout, and this client
      // must keep trying until Redis is back.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    },
  };
}

/**
 * Whether Redis answers a PING within `timeoutMs` (and within the client's own deadline); for a
 * cluster, whether every master does.
 */
export async function redisReachable(client: RedisClient, timeoutMs = 1000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
    });
    return await Promise.race([pingAll(client), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function pingAll(client: RedisClient): Promise<boolean> {
  if (!isRedisCluster(client)) return (await client.ping()) === "PONG";
  const masters = client.masters;
  if (masters.length === 0) return false;
  const replies = await Promise.all(
    masters.map(async (master) => (await client.nodeClient(master)).ping()),
  );
  return replies.every((reply) => reply === "PONG");
}

/**
 * Closes the client after its pending replies, but returns once the socket's idle timeout has
 * passed even if they never come: node-redis's `close()` waits for replies a stalled server never
 * sends (the idle timeout then destroys the socket, yet `close()` never resolves). A cluster
 * client closes every node's connection the same way.
 */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  const options = isRedisCluster(client) ? client._options?.defaults : client.options;
  const socket = options?.socket as { socketTimeout?: number } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const idle = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, (socket?.socketTimeout ?? 5000) + 500);
  });
  try {
    await Promise.race([client.close().then(() => closed = true), idle]);
  } finally {
    clearTimeout(timer);
  }
  // A cluster node still waiting for replies keeps its socket open: let it go.
  if (!closed && isRedisCluster(client)) client.destroy();
}
