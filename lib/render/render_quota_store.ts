/**
 * Render quota counters: how many renders each key's tokens were admitted in the current UTC day
 * and UTC month. One spend counts against both periods or against neither: the Redis script reads
 * both counters and increments both only when each is under its limit, so concurrent spends on
 * every render node can never admit one render more than a limit.
 *
 * Keys are `<prefix>quota:{<keyId>}:d:<YYYY-MM-DD>` and `…:m:<YYYY-MM>`: hash-tagged by key so one
 * script can touch both in Redis Cluster, and named by period so a new day starts from zero without
 * a reset; each expires an hour after its period ends (the hour absorbs clock skew between nodes).
 * A Redis failure on a spend fails closed with `service_unavailable` (a quota is money).
 */
import { LRUCache } from "lru-cache";
import type { RenderQuota } from "../store/sdk_keys.ts";
import type { RedisClient } from "../redis/client.ts";
import { RedisUnavailableError } from "../redis/deadline.ts";
import { RedisScript } from "../redis/script.ts";

/** A quota period: the UTC day or the UTC month. */
export type QuotaPeriod = "day" | "month";

/** The UTC periods a moment falls in, and when each ends (ms since the epoch). */
export interface QuotaPeriods {
  /** `YYYY-MM-DD` */
  day: string;
  /** `YYYY-MM` */
  month: string;
  dayEndsAt: number;
  monthEndsAt: number;
}

/** Counters outlive their period by this long, in seconds (clock skew between nodes). */
export const QUOTA_COUNTER_GRACE_S = 3600;

/** The UTC day and month of `nowMs`, with their ends. */
export function quotaPeriods(nowMs: number): QuotaPeriods {
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const iso = d.toISOString();
  return {
    day: iso.slice(0, 10),
    month: iso.slice(0, 7),
    dayEndsAt: Date.UTC(y, m, d.getUTCDate() + 1),
    monthEndsAt: Date.UTC(y, m + 1, 1),
  };
}

/** Renders counted in the current day and month. */
export interface QuotaCounts {
  day: number;
  month: number;
}

/** The outcome of a spend: counted (with the new counts), or refused by the period that is spent. */
export type QuotaSpend =
  | ({ allowed: true } & QuotaCounts)
  | { allowed: false; period: QuotaPeriod; used: number };

/** Counts renders per key against day and month limits. */
export interface RenderQuotaStore {
  /** Counts one render in both periods of `nowMs` unless either is at its limit (null = none). */
  spend(keyId: string, limits: RenderQuota, nowMs: number): Promise<QuotaSpend>;
  /** Gives back one render in both periods of `nowMs` (never below zero). */
  refund(keyId: string, nowMs: number): Promise<void>;
  /** The counts of both periods of `nowMs` (0 where nothing was counted). */
  used(keyId: string, nowMs: number): Promise<QuotaCounts>;
}

// KEYS[1] day counter, KEYS[2] month counter; ARGV[1] day limit, ARGV[2] month limit (-1 = none),
// ARGV[3], ARGV[4] when each counter expires (unix s). Returns {0, day, month} when counted, or
// {2, month} / {1, day} when the month / the day is spent (the month first: it lasts longer).
const SPEND_SCRIPT = `
local day = tonumber(redis.call('GET', KEYS[1]) or '0')
local month = tonumber(redis.call('GET', KEYS[2]) or '0')
local dayLimit = tonumber(ARGV[1])
local monthLimit = tonumber(ARGV[2])
if monthLimit >= 0 and month >= monthLimit then return {2, month} end
if dayLimit >= 0 and day >= dayLimit then return {1, day} end
day = redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
month = redis.call('INCR', KEYS[2])
redis.call('EXPIREAT', KEYS[2], ARGV[4])
return {0, day, month}
`;

// KEYS[1], KEYS[2] as above. Gives one render back to each counter that has one.
const REFUND_SCRIPT = `
for i = 1, 2 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0
`;

/** Quota counters in Redis, shared by every render node. */
export class RedisRenderQuotaStore implements RenderQuotaStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #spend: RedisScript;
  readonly #refund: RedisScript;

  /** Keys start with `prefix` (the deployment's `REDIS_PREFIX`). */
  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#spend = new RedisScript(redis, SPEND_SCRIPT);
    this.#refund = new RedisScript(redis, REFUND_SCRIPT);
  }

  /** One script run; throws `service_unavailable` when Redis does not answer. */
  async spend(keyId: string, limits: RenderQuota, nowMs: number): Promise<QuotaSpend> {
    const p = quotaPeriods(nowMs);
    const expiry = (endMs: number) => String(endMs / 1000 + QUOTA_COUNTER_GRACE_S);
    let reply: number[];
    try {
      reply = (await this.#spend.run(this.#keys(keyId, p), [
        String(limits.day ?? -1),
        String(limits.month ?? -1),
        expiry(p.dayEndsAt),
        expiry(p.monthEndsAt),
      ])) as number[];
    } catch (err) {
      throw new RedisUnavailableError(
        "Render quotas cannot be checked right now; no render was served. Retry shortly.",
        err,
      );
    }
    const [outcome, a, b] = reply.map(Number);
    if (outcome === 0) return { allowed: true, day: a, month: b };
    return { allowed: false, period: outcome === 2 ? "month" : "day", used: a };
  }

  /** One script run; a failure is reported to the caller (the render then stays counted). */
  async refund(keyId: string, nowMs: number): Promise<void> {
    await this.#refund.run(this.#keys(keyId, quotaPeriods(nowMs)), []);
  }

  /** One MGET of both counters. */
  async used(keyId: string, nowMs: number): Promise<QuotaCounts> {
    const [day, month] = await this.#redis.mGet(this.#keys(keyId, quotaPeriods(nowMs)));
    return { day: Number(day ?? 0), month: Number(month ?? 0) };
  }

  #keys(keyId: string, p: QuotaPeriods): [string, string] {
    const base = `${this.#prefix}quota:{${keyId}}`;
    return [`${base}:d:${p.day}`, `${base}:m:${p.month}`];
  }
}

/** Quota counters in process memory (one instance only; at most `max` counters). */
export class MemoryRenderQuotaStore implements RenderQuotaStore {
  readonly #counts: LRUCache<string, { n: number }>;

  /** Holds at most `max` counters; each is dropped an hour after its period ends. */
  constructor(max = 100_000) {
    // ttlResolution 0: a clock read per access instead of a timer per millisecond.
    this.#counts = new LRUCache({ max, ttlAutopurge: false, ttlResolution: 0 });
  }

  /** Counts in both periods unless one is spent; synchronous inside, so exact under concurrency. */
  spend(keyId: string, limits: RenderQuota, nowMs: number): Promise<QuotaSpend> {
    const [day, month] = this.#counters(keyId, nowMs);
    if (limits.month !== null && month.n >= limits.month) {
      return Promise.resolve({ allowed: false, period: "month", used: month.n });
    }
    if (limits.day !== null && day.n >= limits.day) {
      return Promise.resolve({ allowed: false, period: "day", used: day.n });
    }
    day.n++;
    month.n++;
    return Promise.resolve({ allowed: true, day: day.n, month: month.n });
  }

  /** Gives one render back to each counter that has one. */
  refund(keyId: string, nowMs: number): Promise<void> {
    for (const c of this.#counters(keyId, nowMs)) if (c.n > 0) c.n--;
    return Promise.resolve();
  }

  /** The counts of both periods. */
  used(keyId: string, nowMs: number): Promise<QuotaCounts> {
    const [day, month] = this.#counters(keyId, nowMs);
    return Promise.resolve({ day: day.n, month: month.n });
  }

  #counters(keyId: string, nowMs: number): [{ n: number }, { n: number }] {
    const p = quotaPeriods(nowMs);
    const counter = (name: string, endsAt: number) => {
      let c = this.#counts.get(name);
      if (!c) {
        c = { n: 0 };
        this.#counts.set(name, c, { ttl: endsAt - nowMs + QUOTA_COUNTER_GRACE_S * 1000 });
      }
      return c;
    };
    return [
      counter(`${keyId}\nd\n${p.day}`, p.dayEndsAt),
      counter(`${keyId}\nm\n${p.month}`, p.monthEndsAt),
    ];
  }
}
