/**
 * SCAN over every key of the deployment: one server's keyspace, or each master's on a Redis
 * Cluster (a SCAN sent to the cluster client would reach one random node and miss the others).
 */
import { isRedisCluster, type RedisClient } from "./client.ts";

/**
 * The names of the keys matching `match`, in batches, from every master.
 *
 * @example
 * ```ts
 * for await (const batch of scanKeys(redis, "cadcfg:revoked:jti:*")) console.log(batch.length);
 * ```
 */
export async function* scanKeys(
  redis: RedisClient,
  match: string,
  count = 500,
): AsyncGenerator<string[]> {
  const options = { MATCH: match, COUNT: count };
  if (!isRedisCluster(redis)) {
    yield* redis.scanIterator(options);
    return;
  }
  for (const master of redis.masters) {
    yield* (await redis.nodeClient(master)).scanIterator(options);
  }
}
