/**
 * A verifier that remembers tokens it has verified: a configurator session renders many times
 * with one token, and only the first render pays for Ed25519. Entries are keyed by the exact token
 * string, bounded in number, and never outlive the token (expiry is re-checked on every hit).
 */
import { LRUCache } from "lru-cache";
import { assertClaimValues, CLOCK_LEEWAY_S, type SessionClaims } from "./claims.ts";
import { TokenError } from "./errors.ts";
import { type KeyResolver, verifyToken } from "./verify.ts";

/** Verifies `sv1.` tokens with a bounded cache of verified ones. */
export class CachingTokenVerifier {
  readonly #resolveKey: KeyResolver;
  readonly #clock: () => number;
  readonly #cache: LRUCache<string, SessionClaims>;

  /** `clock` returns milliseconds; `max` bounds the cached tokens. */
  constructor(resolveKey: KeyResolver, options: { clock?: () => number; max?: number } = {}) {
    this.#resolveKey = resolveKey;
    this.#clock = options.clock ?? Date.now;
    // ttlResolution 0: entries carry a TTL, and the default caches the clock for 1 ms by arming a
    // timer each millisecond, which costs the render hit path more than reading the clock.
    this.#cache = new LRUCache({ max: options.max ?? 50_000, ttlResolution: 0 });
  }

  /**
   * The token's claims; throws `TokenError` exactly as `verifyToken` does.
   *
   * @example
   * ```ts
   * const verifier = new CachingTokenVerifier((kid) => keyring.resolve(kid));
   * const claims = await verifier.verify(token);
   * ```
   */
  async verify(token: string): Promise<SessionClaims> {
    const now = Math.floor(this.#clock() / 1000);
    const hit = this.#cache.get(token);
    if (hit) {
      // The same time checks a fresh verification makes (expiry above all).
      try {
        assertClaimValues(hit, now);
      } catch (err) {
        if (err instanceof TokenError) {
          err.verifiedPayload = hit as unknown as Record<string, unknown>;
        }
        throw err;
      }
      return hit;
    }
    const claims = await verifyToken(token, this.#resolveKey, { now });
    // Forget the entry a little after expiry even if it is never asked for again.
    const ttl = Math.max(1, (claims.exp + CLOCK_LEEWAY_S - now) * 1000);
    this.#cache.set(token, claims, { ttl });
    return claims;
  }

  /** How many verified tokens are held. */
  get size(): number {
    return this.#cache.size;
  }
}
