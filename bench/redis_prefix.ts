/** Removing what a benchmark wrote to Redis: every key under its random prefix. */
import { createClient } from "redis";

/** Deletes every key under `prefix` (SCAN + DEL) and returns how many there were. */
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
