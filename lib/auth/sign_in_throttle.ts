/**
 * Throttles failed sign-ins with `rate-limiter-flexible`: at most `PER_ACCOUNT` failures per
 * email and `PER_CLIENT` per client IP in a 15-minute window; beyond that the next attempt is
 * refused (`sign_in_throttled`, with `Retry-After`) before the password is even checked. Counts
 * live in Redis when configured (shared by every instance), else in process. A success clears the
 * account's counter.
 *
 * While Redis is unreachable or stalled, `check`, `failed` and `succeeded` (the library's `get`,
 * `penalty` and `delete`, each of which hands a store error to the insurance limiter) count in
 * process instead: every call ends within `REDIS_TIMEOUT_MS` (lib/redis/deadline.ts; `get` is a
 * MULTI, which the deadline covers too). Why not fail closed: refusing every sign-in would lock
 * partners out of their settings (revoking a leaked key included) for as long as Redis is out,
 * while a per-instance count still stops guessing, at most instances × the limits, on top of the
 * argon2id cost of every guess.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { AppError } from "../http/problem.ts";
import type { RedisClient } from "../redis/client.ts";

/** Failures allowed per account (email) per window. */
export const PER_ACCOUNT = 5;
/** Failures allowed per client IP per window. */
export const PER_CLIENT = 20;
/** The window, in seconds. */
export const WINDOW_S = 15 * 60;

/** Counts failed sign-ins per account and per client. */
export class SignInThrottle {
  readonly #account: RateLimiterAbstract;
  readonly #client: RateLimiterAbstract;

  /** Uses Redis (node-redis, via `useRedisPackage`) when given, else in-process counters. */
  constructor(options: { redis?: RedisClient; prefix: string }) {
    const make = (points: number, name: string): RateLimiterAbstract => {
      const base = { points, duration: WINDOW_S, keyPrefix: `${options.prefix}signin:${name}` };
      return options.redis
        ? new RateLimiterRedis({
          ...base,
          storeClient: options.redis,
          useRedisPackage: true,
          insuranceLimiter: new RateLimiterMemory(base),
        })
        : new RateLimiterMemory(base);
    };
    this.#account = make(PER_ACCOUNT, "account");
    this.#client = make(PER_CLIENT, "client");
  }

  /** Throws `sign_in_throttled` when either budget of failures is spent. */
  async check(email: string, clientIp: string): Promise<void> {
    const [a, c] = await Promise.all([
      this.#account.get(email.toLowerCase()),
      this.#client.get(clientIp),
    ]);
    const blocked = [
      a && a.consumedPoints >= PER_ACCOUNT ? a : null,
      c && c.consumedPoints >= PER_CLIENT ? c : null,
    ].filter((r): r is RateLimiterRes => r !== null);
    if (blocked.length > 0) {
      const wait = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
      throw new AppError(
        "sign_in_throttled",
        `Too many failed sign-ins for this account or from this network; retry in ${
          Math.ceil(wait / 60)
        } min.`,
        { headers: { "Retry-After": String(wait) } },
      );
    }
  }

  /** Records one failure against both the account and the client. */
  async failed(email: string, clientIp: string): Promise<void> {
    await Promise.all([
      this.#account.penalty(email.toLowerCase(), 1),
      this.#client.penalty(clientIp, 1),
    ]);
  }

  /** Clears the account's failures after a successful sign-in. */
  async succeeded(email: string): Promise<void> {
    await this.#account.delete(email.toLowerCase());
  }
}
