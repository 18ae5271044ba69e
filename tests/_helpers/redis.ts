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
