/**
 * Per-key render quotas per UTC day and per UTC month (docs/security.md): the bound on what a
 * leaked or abused keyId can cost its partner, whatever the number of tokens minted with it. The
 * render pipeline spends one unit per render after the token's budget, and gives it back when the
 * render was not served (refused for capacity, stopped at its deadline).
 *
 * Quota settings live on the key record in Deno KV, read through the key cache
 * (lib/store/sdk_key_cache.ts, the mint path's own when one process serves both): an edit reaches every
 * render node within its 2 s bound. A key without quotas (the default) costs one in-process cache lookup per render and
 * no Redis call. Counting is lib/render/render_quota_store.ts.
 */
import { AppError } from "../http/problem.ts";
import { SdkKeyCache } from "../store/sdk_key_cache.ts";
import type { QuotaCounts, QuotaPeriod, RenderQuotaStore } from "./render_quota_store.ts";
import { quotaPeriods } from "./render_quota_store.ts";
import { type RenderQuota, UNLIMITED_RENDER_QUOTA } from "../store/sdk_keys.ts";

/** Counts renders against a key's daily and monthly quotas. */
export interface RenderQuotaGate {
  /** Counts one render against keyId's quotas; throws AppError "quota_exceeded" (429, Retry-After = seconds to the next UTC day/month, extensions { quota: "day"|"month", limit }) when either is spent, counting nothing. */
  spend(keyId: string): Promise<void>;
  /** Gives back one render counted by `spend` (the render was refused for capacity or killed by its deadline). */
  refund(keyId: string): Promise<void>;
}

/** Where a key's quota settings are read: the key cache over KV, or the hub on a kernel node. */
export interface KeyQuotaLookup {
  /** The key's record (only `renderQuota` is read), or null for an unknown key. */
  get(keyId: string): Promise<{ renderQuota?: RenderQuota } | null>;
  /** Forgets the cached settings of one key. */
  invalidate(keyId: string): void;
}

/** The largest quota a key may set (per day or per month). */
export const RENDER_QUOTA_MAX = 1_000_000_000;

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
  readonly #keys: KeyQuotaLookup;
  readonly #store: RenderQuotaStore;
  readonly #clock: () => number;

  /**
   * Reads settings through `keys` (default: a key cache over `kv`, records cached `ttlMs`) and
   * counts in `store`.
   */
  constructor(options: {
    /** Where key records are read when `keys` is not given. */
    kv?: Deno.Kv;
    store: RenderQuotaStore;
    clock?: () => number;
    keys?: KeyQuotaLookup;
    ttlMs?: number;
  }) {
    if (!options.keys && !options.kv) throw new TypeError("RenderQuotas needs `kv` or `keys`");
    this.#keys = options.keys ?? new SdkKeyCache(options.kv!, { ttlMs: options.ttlMs });
    this.#store = options.store;
    this.#clock = options.clock ?? Date.now;
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
    this.#keys.invalidate(keyId);
  }

  /** The key's quota settings; a KV failure fails closed (a quota is money). */
  async #quotaOf(keyId: string): Promise<RenderQuota> {
    try {
      return (await this.#keys.get(keyId))?.renderQuota ?? UNLIMITED_RENDER_QUOTA;
    } catch (err) {
      throw new AppError(
        "service_unavailable",
        "Render quotas cannot be read right now; no render was served. Retry shortly.",
        { cause: err, headers: { "Retry-After": "1" } },
      );
    }
  }
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
