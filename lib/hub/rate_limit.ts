/**
 * Per-keyId mint rate limits on `rate-limiter-flexible`: a fixed window per key in Redis, shared
 * by every hub instance. While Redis is unreachable or stalled (a call fails at once, or past
 * `REDIS_TIMEOUT_MS`: lib/redis/deadline.ts) each process falls back to an in-memory limiter with
 * the same policy, counting from zero. Why not fail closed: a rate limit caps abuse, it is not
 * money; per-instance limits still cap it (at most instances × policy), whereas refusing would
 * turn a Redis stall into a mint outage for every partner. Budgets, which are money, fail closed
 * (docs/api.md, When Redis is down).
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { RedisClient } from "../redis/client.ts";
import { RedisScript } from "../redis/script.ts";

import type { RateLimitPolicy } from "../store/sdk_keys.ts";
export type { RateLimitPolicy };

/** The default per-keyId policy: 600 mints a minute (documented in docs/api.md). */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { points: 600, durationSeconds: 60 };

/** Bounds a partner may choose for a key's policy. */
export const RATE_LIMIT_BOUNDS = {
  minPoints: 1,
  maxPoints: 1_000_000,
  minDuration: 1,
  maxDuration: 86_400,
};

/** The outcome of one attempt to consume a point. */
export interface RateLimitResult {
  allowed: boolean;
  policy: RateLimitPolicy;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Counts mints per keyId against each key's policy. */
export class MintRateLimiter {
  readonly #redis: RedisClient | undefined;
  readonly #prefix: string;
  // One limiter per distinct policy; bounded by how many distinct policies keys use.
  readonly #limiters = new Map<string, RateLimiterAbstract>();

  /** Uses Redis when a client is given, else in-process counters. */
  constructor(options: { redis?: RedisClient; prefix: string }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
  }

  /** Spends one point for `keyId` under `policy`. */
  async consume(
    keyId: string,
    policy: RateLimitPolicy = DEFAULT_RATE_LIMIT,
  ): Promise<RateLimitResult> {
    const limiter = this.#limiterFor(policy);
    try {
      const res = await limiter.consume(keyId, 1);
      return toResult(true, policy, res);
    } catch (err) {
      if (err instanceof RateLimiterRes) return toResult(false, policy, err);
      throw err;
    }
  }

  #limiterFor(policy: RateLimitPolicy): RateLimiterAbstract {
    const id = `${policy.points}:${policy.durationSeconds}`;
    let limiter = this.#limiters.get(id);
    if (limiter) return limiter;
    const base = {
      points: policy.points,
      duration: policy.durationSeconds,
      // The policy is part of the key so changing a key's policy starts a fresh window.
      keyPrefix: `${this.#prefix}rl:mint:${id}`,
    };
    limiter = this.#redis
      ? new RateLimiterRedis({
        ...base,
        storeClient: new ScriptedStoreClient(this.#redis),
        insuranceLimiter: new RateLimiterMemory(base),
      })
      : new RateLimiterMemory(base);
    if (this.#limiters.size > 1000) this.#limiters.clear();
    this.#limiters.set(id, limiter);
    return limiter;
  }
}

/**
 * The store client handed to `RateLimiterRedis`: the library registers its increment script with
 * `defineCommand` (the ioredis convention) and then calls it by name; we run it with EVALSHA so
 * each mint sends a SHA instead of the whole script text (node-redis would send EVAL + source).
 */
class ScriptedStoreClient {
  #script: RedisScript | undefined;
  constructor(private readonly redis: RedisClient) {}

  defineCommand(_name: string, definition: { lua: string }): void {
    this.#script = new RedisScript(this.redis, definition.lua);
  }

  rlflxIncr(args: string[]): Promise<unknown> {
    if (!this.#script) throw new Error("rate limiter script not defined");
    return this.#script.run([args[0]], args.slice(1));
  }
}

function toResult(allowed: boolean, policy: RateLimitPolicy, res: RateLimiterRes): RateLimitResult {
  return {
    allowed,
    policy,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * The `RateLimit-Policy` and `RateLimit` response headers (IETF httpapi-ratelimit-headers), plus
 * `Retry-After` when the request was refused.
 */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Policy": `"mint";q=${result.policy.points};w=${result.policy.durationSeconds}`,
    "RateLimit": `"mint";r=${result.remaining};t=${result.resetSeconds}`,
  };
  if (!result.allowed) headers["Retry-After"] = String(result.resetSeconds);
  return headers;
}
