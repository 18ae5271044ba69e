/**
 * A Lua script run with EVALSHA: every call sends only the script's 40-byte SHA1 (computed here),
 * and a server that does not know it yet (first use, a restart, SCRIPT FLUSH, a failover) answers
 * NOSCRIPT, so the call is sent once more as EVAL with the source, which also caches the script on
 * that server. Both go to the node that holds the script's first key, so on a Redis Cluster each
 * master learns the script the first time one of its keys is used (SCRIPT LOAD would reach one
 * random node). Every key of one call must be in one hash slot (`{…}` tags).
 */
import { createHash } from "node:crypto";
import type { RedisClient } from "./client.ts";

/** One Lua script bound to a client. */
export class RedisScript {
  readonly #redis: RedisClient;
  readonly #source: string;
  readonly #sha: string;

  /** Binds `source` to `redis`; nothing is sent until the first `run`. */
  constructor(redis: RedisClient, source: string) {
    this.#redis = redis;
    this.#source = source;
    this.#sha = createHash("sha1").update(source).digest("hex");
  }

  /**
   * Runs the script with `keys` (at least one on a cluster: it routes the call) and `args`.
   *
   * @example
   * ```ts
   * const incr = new RedisScript(redis, "return redis.call('INCR', KEYS[1])");
   * await incr.run(["counter"], []);
   * ```
   */
  async run(keys: string[], args: string[]): Promise<unknown> {
    const options = { keys, arguments: args };
    try {
      return await this.#redis.evalSha(this.#sha, options);
    } catch (err) {
      if (!String((err as Error)?.message).startsWith("NOSCRIPT")) throw err;
      return await this.#redis.eval(this.#source, options);
    }
  }
}
