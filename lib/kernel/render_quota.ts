/**
 * Per-key render quotas per UTC day and per UTC month (docs/security.md): the bound on what a
 * leaked or abused keyId can cost its partner, whatever the number of tokens minted with it. The
 * render pipeline spends one unit per render after the token's budget, and gives it back when the
 * render was not served (refused for capacity, stopped at its deadline).
 *
 * Quota settings live on the key record in Deno KV and are cached here for at most
 * `QUOTA_CACHE_TTL_MS`, like the mint path's key cache: an edit reaches every render node within
 * that bound. A key without quotas (the default) costs one in-process cache lookup per render and
 * no Redis call. Counting is lib/redis/render_quota_store.ts.
 */
import { LRUCache } from "lru-cache";
import { AppError } from "../http/problem.ts";
import type { QuotaCounts, QuotaPeriod, RenderQuotaStore } from "../redis/render_quota_store.ts";
import { quotaPeriods } from "../redis/render_quota_store.ts";
import { getSdkKey, type RenderQuota, UNLIMITED_RENDER_QUOTA } from "../store/sdk_keys.ts";

/** Counts renders against a key's daily and monthly quotas. */
export interface RenderQuotaGate {
  /** Counts one render against keyId's quotas; throws AppError "quota_exceeded" (429, Retry-After = seconds to the next UTC day/month, extensions { quota: "day"|"month", limit }) when either is spent, counting nothing. */
  spend(keyId: string): Promise<void>;
  /** Gives back one render counted by `spend` (the render was refused for capacity or killed by its deadline). */
  refund(keyId: string): Promise<void>;
}

/** The largest quota a key may set (per day or per month). */
export const RENDER_QUOTA_MAX = 1_000_000_000;

/** Default staleness bound of cached quota settings, in milliseconds. */
export const QUOTA_CACHE_TTL_MS = 2000;

/**
 * The render quota gate: quota settings from KV (cached), counts in a `RenderQuotaStore`.
 *
 * @example
 * ```ts
 * const quotas = new RenderQuotas({ kv, store: new RedisRenderQuotaStore(redis, "cadcfg:") });
 * await quotas.spend(claims.client_id); // throws quota_exceeded when a period is spent
 * ```
 */
export class RenderQuotas implements RenderQuotaGate {
  readonly #kv: Deno.Kv;
  readonly #store: RenderQuotaStore;
  readonly #clock: () => number;
  readonly #settings: LRUCache<string, Promise<RenderQuota>>;

  /** Reads settings from `kv` (cached `ttlMs`, at most `max` keys) and counts in `store`. */
  constructor(options: {
    kv: Deno.Kv;
    store: RenderQuotaStore;
    clock?: () => number;
    ttlMs?: number;
    max?: number;
  }) {
    this.#kv = options.kv;
    this.#store = options.store;
    this.#clock = options.clock ?? Date.now;
    this.#settings = new LRUCache({
      max: options.max ?? 10_000,
      ttl: options.ttlMs ?? QUOTA_CACHE_TTL_MS,
      // A clock read per get instead of a timer per millisecond (see lib/hub/key_cache.ts).
      ttlResolution: 0,
    });
  }

  /** Counts one render; throws `quota_exceeded`, or `service_unavailable` when a store is down. */
  async spend(keyId: string): Promise<void> {
    const quota = await this.#quotaOf(keyId);
    if (quota.day === null && quota.month === null) return;
    const now = this.#clock();
    const spent = await this.#store.spend(keyId, quota, now);
    if (!spent.allowed) throw quotaExceeded(spent.period, quota[spent.period]!, now);
  }

  /** Gives one render back (nothing to do for a key without quotas). */
  async refund(keyId: string): Promise<void> {
    const quota = await this.#quotaOf(keyId);
    if (quota.day === null && quota.month === null) return;
    await this.#store.refund(keyId, this.#clock());
  }

  /** The renders counted for `keyId` in the periods of `nowMs` (the usage page). */
  used(keyId: string, nowMs = this.#clock()): Promise<QuotaCounts> {
    return this.#store.used(keyId, nowMs);
  }

  /** Forgets the cached settings of `keyId` (after an edit made by this process). */
  invalidate(keyId: string): void {
    this.#settings.delete(keyId);
  }

  /** The key's quota settings; concurrent misses share one KV read. */
  #quotaOf(keyId: string): Promise<RenderQuota> {
    const hit = this.#settings.get(keyId);
    if (hit) return hit;
    const read = getSdkKey(this.#kv, keyId).then(
      (record) => record?.renderQuota ?? UNLIMITED_RENDER_QUOTA,
      (err: unknown) => {
        if (this.#settings.peek(keyId) === read) this.#settings.delete(keyId);
        throw new AppError(
          "service_unavailable",
          "Render quotas cannot be read right now; no render was served. Retry shortly.",
          { cause: err, headers: { "Retry-After": "1" } },
        );
      },
    );
    this.#settings.set(keyId, read);
    return read;
  }
}

/**
 * Forgets `keyId`'s cached quota settings when `gate` is this process's `RenderQuotas` (a process
 * serving both the settings and renders); other gates see an edit within their cache bound.
 */
export function invalidateRenderQuota(gate: unknown, keyId: string): void {
  if (gate instanceof RenderQuotas) gate.invalidate(keyId);
}

/**
 * The `quota_exceeded` problem for a spent `period` of `limit` renders at `nowMs`: `Retry-After`
 * is the number of seconds to the start of the next UTC day or month.
 */
export function quotaExceeded(period: QuotaPeriod, limit: number, nowMs: number): AppError {
  const p = quotaPeriods(nowMs);
  const resetsAt = period === "day" ? p.dayEndsAt : p.monthEndsAt;
  const seconds = Math.max(1, Math.ceil((resetsAt - nowMs) / 1000));
  return new AppError(
    "quota_exceeded",
    `This key's render quota of ${limit} per UTC ${period} is used up; renders resume at ` +
      `${new Date(resetsAt).toISOString()} (in ${seconds} s).`,
    { extensions: { quota: period, limit }, headers: { "Retry-After": String(seconds) } },
  );
}
