/**
 * Revocation lists checked on every render (issue: "key or token revoked"). A revoked key stops
 * every token it minted (it never mints again, so that is all of them); a revoked token stops by
 * `jti`. With Redis the
 * lists are shared by every node (entries expire once no affected token can still be alive);
 * without Redis the single instance reads the key records in Deno KV (cached for at most
 * `KV_REVOCATION_STALENESS_MS`).
 */
import { LRUCache } from "lru-cache";
import { AppError } from "../http/problem.ts";
import type { SdkKeyRecord } from "../store/sdk_keys.ts";
import { CLOCK_LEEWAY_S, MAX_TOKEN_LIFETIME_S } from "../token/claims.ts";
import type { RedisClient } from "./client.ts";

/** How stale the KV-backed revocation view may be, in milliseconds (documented bound). */
export const KV_REVOCATION_STALENESS_MS = 2000;

/** What a revocation check needs from a verified token. */
export interface RevocationSubject {
  /** The keyId that minted the token. */
  client_id: string;
  jti: string;
}

/** Records and answers revocations of keys and tokens. */
export interface RevocationList {
  /** Marks every token minted by `keyId` as revoked (`revokedAtMs` is kept for audit). */
  revokeKey(keyId: string, revokedAtMs: number): Promise<void>;
  /** Marks one token as revoked until its expiry (`exp`, Unix seconds). */
  revokeToken(jti: string, exp: number): Promise<void>;
  /** Whether the token (or the key that minted it) is revoked. */
  isRevoked(subject: RevocationSubject): Promise<boolean>;
}

/** Revocations in Redis, shared by every node. */
export class RedisRevocationList implements RevocationList {
  /** Keys: `<prefix>revoked:key:<keyId>` (value: revokedAt seconds) and `<prefix>revoked:jti:<jti>`. */
  constructor(private readonly redis: RedisClient, private readonly prefix: string) {}

  /** Records a key revocation; it lasts as long as the longest token could. */
  async revokeKey(keyId: string, revokedAtMs: number): Promise<void> {
    const at = Math.ceil(revokedAtMs / 1000);
    await this.redis.set(`${this.prefix}revoked:key:${keyId}`, String(at), {
      expiration: { type: "EXAT", value: at + MAX_TOKEN_LIFETIME_S + CLOCK_LEEWAY_S },
    });
  }

  /** Records a token revocation until the token's expiry. */
  async revokeToken(jti: string, exp: number): Promise<void> {
    await this.redis.set(`${this.prefix}revoked:jti:${jti}`, "1", {
      expiration: { type: "EXAT", value: exp + CLOCK_LEEWAY_S },
    });
  }

  /** Two GETs (pipelined); a Redis failure fails closed with `service_unavailable`. */
  async isRevoked(subject: RevocationSubject): Promise<boolean> {
    try {
      const [keyAt, jti] = await Promise.all([
        this.redis.get(`${this.prefix}revoked:key:${subject.client_id}`),
        this.redis.get(`${this.prefix}revoked:jti:${subject.jti}`),
      ]);
      // A revoked key never mints again, so every token that names it is refused.
      return jti !== null || keyAt !== null;
    } catch (err) {
      throw new AppError(
        "service_unavailable",
        "Revocations cannot be checked right now; retry shortly.",
        {
          cause: err,
          headers: { "Retry-After": "1" },
        },
      );
    }
  }
}

/** Revocations read from the key records in Deno KV (single instance without Redis). */
export class KvRevocationList implements RevocationList {
  readonly #kv: Deno.Kv;
  readonly #keys = new LRUCache<string, { revokedAt: number | null }>({
    max: 10_000,
    ttl: KV_REVOCATION_STALENESS_MS,
    ttlResolution: 0, // a clock read per get, not a timer per millisecond
  });

  /** Reads `["sdk_keys", keyId]` and `["revoked_tokens", jti]`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** The key record itself carries `revokedAt`; only the cache needs forgetting. */
  revokeKey(keyId: string): Promise<void> {
    this.#keys.delete(keyId);
    return Promise.resolve();
  }

  /** Stores the jti with an expiry at the token's `exp`. */
  async revokeToken(jti: string, exp: number): Promise<void> {
    const ms = Math.max(1000, (exp + CLOCK_LEEWAY_S) * 1000 - Date.now());
    await this.#kv.set(["revoked_tokens", jti], true, { expireIn: ms });
  }

  /** Whether the key was revoked at or after the token's issue, or the jti is listed. */
  async isRevoked(subject: RevocationSubject): Promise<boolean> {
    let key = this.#keys.get(subject.client_id);
    if (!key) {
      const record = (await this.#kv.get<SdkKeyRecord>(["sdk_keys", subject.client_id])).value;
      key = { revokedAt: record ? record.revokedAt : null };
      this.#keys.set(subject.client_id, key);
    }
    if (key.revokedAt !== null) return true;
    return (await this.#kv.get(["revoked_tokens", subject.jti])).value !== null;
  }
}
