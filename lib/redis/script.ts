/**
 * A Lua script run with EVALSHA: the script text crosses the wire once (SCRIPT LOAD), every call
 * after that sends only its 40-byte SHA. After a Redis restart or SCRIPT FLUSH the first call gets
 * NOSCRIPT and the script is loaded again.
 */
import type { RedisClient } from "./client.ts";

/** One Lua script bound to a client. */
export class RedisScript {
  readonly #redis: RedisClient;
  readonly #source: string;
  #sha: Promise<string> | undefined;

  /** Binds `source` to `redis`; nothing is sent until the first `run`. */
  constructor(redis: RedisClient, source: string) {
    this.#redis = redis;
    this.#source = source;
  }

  /**
   * Runs the script with `keys` and `args`.
   *
   * @example
   * ```ts
   * const incr = new RedisScript(redis, "return redis.call('INCR', KEYS[1])");
   * await incr.run(["counter"], []);
   * ```
   */
  async run(keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#redis.evalSha(await this.#load(), { keys, arguments: args });
    } catch (err) {
      if (!String((err as Error)?.message).startsWith("NOSCRIPT")) throw err;
      this.#sha = undefined;
      return await this.#redis.evalSha(await this.#load(), { keys, arguments: args });
    }
  }

  #load(): Promise<string> {
    if (!this.#sha) {
      const loading = this.#redis.scriptLoad(this.#source);
      // A failed load must not be cached, or every later call would fail too.
      loading.catch(() => {
        if (this.#sha === loading) this.#sha = undefined;
      });
      this.#sha = loading;
    }
    return this.#sha;
  }
}
