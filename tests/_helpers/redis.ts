/** The real Redis the tests use, random key prefixes, and their cleanup. */
import { createClient } from "redis";
import { Logger } from "@/lib/ops/logger.ts";
import { connectRedis, type RedisClient } from "@/lib/redis/client.ts";

/** The Redis the tests use (a real server; CI starts one). */
export const TEST_REDIS_URL = Deno.env.get("TEST_REDIS_URL") ?? "redis://127.0.0.1:6379";

/** A random hex suffix for test ids. */
export function rid(bytes = 4): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * Sends one command to the Redis at `url` on a connection of its own, bounded: no reconnecting (a
 * refused or dropped connection rejects at once), and at most `timeoutMs` from connecting to the
 * reply. Test helpers use it to ask servers that may be stopped, paused or gone: node-redis's
 * default reconnects forever, which once hung a whole run when a cluster node exited as it started.
 */
export async function redisCommand(
  url: string,
  args: string[],
  timeoutMs = 5000,
): Promise<unknown> {
  const client = createClient({
    url,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  });
  client.on("error", () => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no reply from ${url} to ${args[0]} within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([client.connect(), deadline]);
    return await Promise.race([client.sendCommand(args), deadline]);
  } finally {
    clearTimeout(timer);
    client.destroy();
  }
}

/** Deletes every Redis key under `prefix` (SCAN + DEL) and returns how many there were. */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      keys.push(...batch);
    }
    if (keys.length) await client.del(keys);
    return keys.length;
  } finally {
    await client.close();
  }
}

/** Runs `fn` with a client and a fresh prefix; removes the prefix's keys afterwards. */
export async function withRedis(
  fn: (redis: RedisClient, prefix: string) => Promise<void>,
): Promise<void> {
  const redis = await connectRedis(TEST_REDIS_URL, new Logger("error", () => {}));
  const prefix = `test:${rid(6)}:`;
  try {
    await fn(redis, prefix);
  } finally {
    if (redis.isOpen) await redis.close();
    await deleteRedisPrefix(TEST_REDIS_URL, prefix);
  }
}
