/**
 * Per-client-IP mint limits of the browser flow. A keyId is public and any non-browser client can
 * send any `Origin` (docs/security.md), so the per-key limit alone would let one machine spend a
 * key's whole mint rate and starve every real visitor. This limit counts mints per key and per
 * client network (lib/http/client_ip.ts: the IPv4 address, or the IPv6 /56) and is checked before
 * the per-key limit, so a client over its own limit spends nothing of the key's. The server flow
 * (secret key) is not limited per IP: its caller is the partner's backend.
 *
 * Counts live in Redis with the per-key limiter's machinery (lib/hub/rate_limit.ts: a fixed window
 * on `rate-limiter-flexible`, keys `<REDIS_PREFIX>ip:rl:mint:<points>:<seconds>:<keyId>:<network>`),
 * falling back to in-process counters while Redis is unreachable, like the per-key limit.
 */
import { clientNetwork } from "../http/client_ip.ts";
import type { RedisClient } from "../redis/client.ts";
import { MintRateLimiter, type RateLimitPolicy, type RateLimitResult } from "./rate_limit.ts";

/**
 * The default per-key, per-client-IP policy: 60 mints a minute. A visitor mints about once per
 * page view and refreshes once per token lifetime, so this leaves room for a few hundred
 * visitors behind one NAT browsing at once, while capping one machine at 1 % of the key's
 * default 600-a-minute rate.
 */
export const DEFAULT_CLIENT_IP_RATE_LIMIT: RateLimitPolicy = { points: 60, durationSeconds: 60 };

/** Counts browser-flow mints per keyId and client network against the key's per-IP policy. */
export class ClientIpMintLimiter {
  readonly #limiter: MintRateLimiter;

  /** Uses Redis when a client is given (shared by every hub instance), else in-process counters. */
  constructor(options: { redis?: RedisClient; prefix: string }) {
    this.#limiter = new MintRateLimiter({ redis: options.redis, prefix: `${options.prefix}ip:` });
  }

  /**
   * Spends one point for `clientIp` minting with `keyId` under `policy`.
   *
   * @example
   * ```ts
   * const r = await limiter.consume(key.keyId, "203.0.113.9", key.clientIpRateLimit);
   * if (!r.allowed) throw new AppError("rate_limited", "…", { headers: clientIpRateLimitHeaders(r) });
   * ```
   */
  consume(
    keyId: string,
    clientIp: string,
    policy: RateLimitPolicy = DEFAULT_CLIENT_IP_RATE_LIMIT,
  ): Promise<RateLimitResult> {
    return this.#limiter.consume(`${keyId}:${clientNetwork(clientIp)}`, policy);
  }
}

/**
 * The `RateLimit-Policy` and `RateLimit` headers of a per-IP result, as a `"mint-ip"` item after
 * those of the per-key limit (`keyHeaders`, when it was consulted), and `Retry-After` when refused.
 *
 * @example
 * ```ts
 * clientIpRateLimitHeaders(ip, rateLimitHeaders(key));
 * // RateLimit-Policy: "mint";q=600;w=60, "mint-ip";q=60;w=60
 * ```
 */
export function clientIpRateLimitHeaders(
  ip: RateLimitResult,
  keyHeaders: Record<string, string> = {},
): Record<string, string> {
  const join = (before: string | undefined, item: string) => before ? `${before}, ${item}` : item;
  const headers: Record<string, string> = {
    ...keyHeaders,
    "RateLimit-Policy": join(
      keyHeaders["RateLimit-Policy"],
      `"mint-ip";q=${ip.policy.points};w=${ip.policy.durationSeconds}`,
    ),
    "RateLimit": join(keyHeaders["RateLimit"], `"mint-ip";r=${ip.remaining};t=${ip.resetSeconds}`),
  };
  if (!ip.allowed) headers["Retry-After"] = String(ip.resetSeconds);
  return headers;
}
