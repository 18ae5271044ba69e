/**
 * Mint rate limits: fixed windows counted in Redis, shared by every hub instance. One mint spends
 * a point in each of its windows (the browser flow: per client network, then per key;
 * lib/hub/client_ip_limit.ts) with **one** script call, which stops at the first window that
 * refuses, so a client over its own limit spends nothing of the key's. A refused attempt still
 * counts in the window that refused it (as in a fixed-window limiter: hammering does not reopen
 * it early).
 *
 * Keys: `<REDIS_PREFIX>rl:mint:<points>:<seconds>:{<keyId>}` per key and
 * `<REDIS_PREFIX>ip:rl:mint:<points>:<seconds>:{<keyId>}:<network>` per client network. The
 * policy is part of the key, so changing a key's policy starts a fresh window; the `{keyId}` tag
 * keeps both windows of a mint in one Redis Cluster slot.
 *
 * While Redis is unreachable or stalled (a call fails at once, or past `REDIS_TIMEOUT_MS`:
 * lib/redis/deadline.ts) each process counts in memory with the same policies, from zero. Why not
 * fail closed: a rate limit caps abuse, it is not money; per-instance limits still cap it (at most
 * instances × policy), whereas refusing would turn a Redis stall into a mint outage for every
 * partner. Budgets, which are money, fail closed (docs/api.md, When Redis is down).
 */
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

/** One window a mint spends a point in: the key's, or (with `network`) one client network's. */
export interface MintWindow {
  policy: RateLimitPolicy;
  /** The client network (lib/http/client_ip.ts `clientNetwork`) for a per-client window. */
  network?: string;
}

/** In-memory windows held before expired ones are swept (and, if all are live, dropped). */
const MEMORY_WINDOWS = 10_000;

// KEYS: the windows' counters, in order. ARGV: points and window length (ms) of each, in order.
// Returns count and milliseconds left of each window reached; stops after the first over its limit.
const CONSUME = `
local out = {}
for i = 1, #KEYS do
  local points = tonumber(ARGV[2 * i - 1])
  local ms = tonumber(ARGV[2 * i])
  local n = redis.call('INCR', KEYS[i])
  local left = ms
  if n == 1 then
    redis.call('PEXPIRE', KEYS[i], ms)
  else
    left = redis.call('PTTL', KEYS[i])
    if left < 0 then
      redis.call('PEXPIRE', KEYS[i], ms)
      left = ms
    end
  end
  out[#out + 1] = n
  out[#out + 1] = left
  if n > points then break end
end
return out
`;

/** Counts mints against their windows, in Redis when a client is given, else in process. */
export class MintRateLimiter {
  readonly #script: RedisScript | undefined;
  readonly #prefix: string;
  readonly #clock: () => number;
  readonly #memory = new Map<string, { count: number; resetAt: number }>();

  /** Uses Redis when a client is given (shared by every hub instance), else in-process counters. */
  constructor(options: { redis?: RedisClient; prefix: string; clock?: () => number }) {
    this.#script = options.redis && new RedisScript(options.redis, CONSUME);
    this.#prefix = options.prefix;
    this.#clock = options.clock ?? Date.now;
  }

  /** Spends one point for `keyId` under `policy` (the key's window alone). */
  async consume(
    keyId: string,
    policy: RateLimitPolicy = DEFAULT_RATE_LIMIT,
  ): Promise<RateLimitResult> {
    return (await this.consumeAll(keyId, [{ policy }]))[0];
  }

  /**
   * Spends one point of `keyId`'s mint in each window, in order, with one Redis call; the result
   * of each window reached, ending at the first that refused (later windows spend nothing).
   *
   * @example
   * ```ts
   * const [ip, key] = await limiter.consumeAll("k1", [
   *   { policy: { points: 60, durationSeconds: 60 }, network: "203.0.113.9" },
   *   { policy: { points: 600, durationSeconds: 60 } },
   * ]);
   * ```
   */
  async consumeAll(keyId: string, windows: MintWindow[]): Promise<RateLimitResult[]> {
    const keys = windows.map((w) => this.#key(keyId, w));
    let counts: number[];
    try {
      counts = this.#script
        ? (await this.#script.run(keys, windows.flatMap(windowArgs))) as number[]
        : this.#consumeInMemory(keys, windows);
    } catch {
      counts = this.#consumeInMemory(keys, windows);
    }
    const results: RateLimitResult[] = [];
    for (let i = 0; i * 2 < counts.length; i++) {
      const { policy } = windows[i];
      const count = Number(counts[i * 2]);
      results.push({
        allowed: count <= policy.points,
        policy,
        remaining: Math.max(0, policy.points - count),
        resetSeconds: Math.max(1, Math.ceil(Number(counts[i * 2 + 1]) / 1000)),
      });
    }
    return results;
  }

  #key(keyId: string, w: MintWindow): string {
    const id = `${w.policy.points}:${w.policy.durationSeconds}:{${keyId}}`;
    return w.network === undefined
      ? `${this.#prefix}rl:mint:${id}`
      : `${this.#prefix}ip:rl:mint:${id}:${w.network}`;
  }

  /** The script's semantics on this process's counters (no Redis, or Redis unreachable). */
  #consumeInMemory(keys: string[], windows: MintWindow[]): number[] {
    const now = this.#clock();
    if (this.#memory.size > MEMORY_WINDOWS) {
      for (const [k, w] of this.#memory) if (w.resetAt <= now) this.#memory.delete(k);
      if (this.#memory.size > MEMORY_WINDOWS) this.#memory.clear();
    }
    const out: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const ms = windows[i].policy.durationSeconds * 1000;
      let w = this.#memory.get(keys[i]);
      if (!w || w.resetAt <= now) {
        w = { count: 0, resetAt: now + ms };
        this.#memory.set(keys[i], w);
      }
      w.count++;
      out.push(w.count, w.resetAt - now);
      if (w.count > windows[i].policy.points) break;
    }
    return out;
  }
}

function windowArgs(w: MintWindow): string[] {
  return [String(w.policy.points), String(w.policy.durationSeconds * 1000)];
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
