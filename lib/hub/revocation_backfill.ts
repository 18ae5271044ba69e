/**
 * The revocations made before the revocation log existed, copied into it once. Until then a
 * revoked key was marked on its record (and, with Redis, under `<prefix>revoked:key:<keyId>`), and
 * a revoked token lived under `<prefix>revoked:jti:<jti>` in Redis or `["revoked_tokens", jti]` in
 * KV. Render nodes now read only the log, so without this copy the first start of this version
 * would let those tokens render again until they expire. Whatever is still enforceable is
 * appended; then a marker makes later starts skip the scan.
 */
import type { Logger } from "../ops/logger.ts";
import type { RedisClient } from "../redis/client.ts";
import { scanKeys } from "../redis/scan.ts";
import type { SdkKeyRecord } from "../store/sdk_keys.ts";
import {
  keyRevocation,
  recordRevocation,
  type RevocationEntry,
  tokenRevocation,
} from "../store/revocations.ts";
import { CLOCK_LEEWAY_S, MAX_TOKEN_LIFETIME_S } from "../token/claims.ts";

const MARKER: Deno.KvKey = ["revocation_log_backfilled"];

/**
 * Copies the earlier revocations into the log unless that was done; returns how many it appended.
 * A Redis that cannot be scanned leaves the marker unset, so the next start tries again.
 *
 * @example
 * ```ts
 * await backfillRevocations(kv, { redis, prefix: config.redisPrefix, now: Date.now(), log });
 * ```
 */
export async function backfillRevocations(
  kv: Deno.Kv,
  options: { redis?: RedisClient; prefix: string; now: number; log?: Logger },
): Promise<number> {
  if ((await kv.get(MARKER)).value !== null) return 0;
  const { now } = options;
  const found = new Map<string, RevocationEntry>();
  const keep = (entry: RevocationEntry) => {
    const id = `${entry.kind}:${entry.id}`;
    if (entry.until > now && (found.get(id)?.until ?? 0) < entry.until) found.set(id, entry);
  };
  for await (const e of kv.list<SdkKeyRecord>({ prefix: ["sdk_keys"] })) {
    if (e.value.revokedAt !== null) keep(keyRevocation(e.value.keyId, e.value.revokedAt));
  }
  // Their exp was not kept: enforce them as long as a token issued now could be accepted.
  const latestExp = Math.floor(now / 1000) + MAX_TOKEN_LIFETIME_S + CLOCK_LEEWAY_S;
  for await (const e of kv.list({ prefix: ["revoked_tokens"] })) {
    keep(tokenRevocation(String(e.key[1]), latestExp, now));
  }
  let complete = true;
  if (options.redis) {
    try {
      await scanRedis(options.redis, options.prefix, now, keep);
    } catch (err) {
      complete = false;
      options.log?.warn("earlier Redis revocations not copied; retried at next start", {
        error: (err as Error)?.message,
      });
    }
  }
  for (const entry of found.values()) await recordRevocation(kv, entry, now);
  if (complete) await kv.set(MARKER, { at: now, copied: found.size });
  if (found.size) options.log?.info("earlier revocations copied to the log", { count: found.size });
  return found.size;
}

async function scanRedis(
  redis: RedisClient,
  prefix: string,
  now: number,
  keep: (entry: RevocationEntry) => void,
): Promise<void> {
  for (const kind of ["key", "jti"] as const) {
    const match = `${prefix}revoked:${kind}:*`;
    for await (const batch of scanKeys(redis, match)) {
      for (const name of batch) {
        const id = name.slice(match.length - 1);
        if (kind === "key") {
          const at = Number(await redis.get(name));
          if (Number.isFinite(at) && at > 0) keep(keyRevocation(id, at * 1000));
        } else {
          const ttl = await redis.pTTL(name);
          if (ttl > 0) keep({ kind: "token", id, at: now, until: now + ttl });
        }
      }
    }
  }
}
