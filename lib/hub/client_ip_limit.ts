/**
 * Per-client-IP mint limits of the browser flow. A keyId is public and any non-browser client can
 * send any `Origin` (docs/security.md), so the per-key limit alone would let one machine spend a
 * key's whole mint rate and starve every real visitor. This limit counts mints per key and per
 * client network (lib/http/client_ip.ts: the IPv4 address, or the IPv6 /56) and is checked before
 * the per-key limit, in the same Redis call, so a client over its own limit spends nothing of the
 * key's (lib/hub/rate_limit.ts: keys `<REDIS_PREFIX>ip:rl:mint:<points>:<seconds>:{<keyId>}:<network>`,
 * in-process counters while Redis is unreachable, like the per-key limit). The server flow (secret
 * key) is not limited per IP: its caller is the partner's backend.
 */
import { clientNetwork } from "../http/client_ip.ts";
import type { MintWindow, RateLimitPolicy, RateLimitResult } from "./rate_limit.ts";

/**
 * The default per-key, per-client-IP policy: 60 mints a minute. A visitor mints about once per
 * page view and refreshes once per token lifetime, so this leaves room for a few hundred
 * visitors behind one NAT browsing at once, while capping one machine at 1 % of the key's
 * default 600-a-minute rate.
 */
export const DEFAULT_CLIENT_IP_RATE_LIMIT: RateLimitPolicy = { points: 60, durationSeconds: 60 };

/**
 * The per-client window of a browser-flow mint from `clientIp`, to spend before the key's.
 *
 * @example
 * ```ts
 * const [ip, key] = await limiter.consumeAll(keyId, [clientIpWindow("203.0.113.9"), { policy }]);
 * ```
 */
export function clientIpWindow(
  clientIp: string,
  policy: RateLimitPolicy = DEFAULT_CLIENT_IP_RATE_LIMIT,
): MintWindow {
  return { policy, network: clientNetwork(clientIp) };
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
