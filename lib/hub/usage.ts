/**
 * Per-key usage counters in Deno KV, for the settings' usage page and its exports. Each event adds
 * one to a daily bucket `["usage", keyId, day, kind, outcome, detail]` with an atomic KV sum, so
 * concurrent hub and kernel processes never lose a count:
 *
 * - `kind` `mint`: `outcome` `ok` or the problem code; `detail` the origin the request named.
 * - `kind` `render`: `outcome` `ok` or the problem code; `detail` the cache level (`l1`, `l2`,
 *   `miss`, or `none` for a refused render).
 *
 * Cardinality is bounded: outcomes are the catalogue's codes, and per key and day at most
 * `MAX_FOREIGN_ORIGINS` origins that are not on the key's allowlist are recorded by name; the rest
 * count as `(other)`. Events are summed in memory and written in batches at most
 * `USAGE_FLUSH_MS` later (off the request path); `flush()` writes what is pending. Only events for
 * keys that exist are recorded. A kernel node (no KV) counts its renders into Redis instead and the
 * hub moves them here (lib/render/usage_relay.ts, lib/hub/usage_drain.ts).
 */
import type { Logger } from "../ops/logger.ts";
import { RenderQuotas } from "../render/render_quota.ts";
import type { RedisClient } from "../redis/client.ts";
import {
  type QuotaCounts,
  quotaPeriods,
  RedisRenderQuotaStore,
} from "../render/render_quota_store.ts";
import type { RenderQuota } from "../store/sdk_keys.ts";
import { dayOf, type RenderUsageSink, USAGE_FLUSH_MS } from "../render/usage_sink.ts";

/** Distinct non-allowlisted origins named per key and day; more count as `(other)`. */
export const MAX_FOREIGN_ORIGINS = 20;
/** Distinct buckets held in memory before a flush is forced. */
const MAX_PENDING_BUCKETS = 500;
/** Origin look-ups in flight beyond which new denied-mint events are dropped (see `dropped`). */
const MAX_IN_FLIGHT = 1000;
/** Bucket sums per atomic KV write (Deno KV allows 1000 mutations per operation). */
const SUMS_PER_WRITE = 200;

/** One counter row: a day bucket of one key, kind, outcome and detail. */
export interface UsageRow {
  day: string;
  kind: "mint" | "render";
  outcome: string;
  detail: string;
  count: number;
}

/** The usage page's figures for one key. */
export interface UsageSummary {
  keyId: string;
  mintsOk: number;
  mintsDenied: number;
  renders: number;
  rendersDenied: number;
  budgetExhausted: number;
  /** Renders refused because the key's daily or monthly render quota was spent. */
  quotaExceeded: number;
  /** (l1 + l2) / successful renders; null when there were none. */
  cacheHitRatio: number | null;
  /** Last successful mint or render (ms since epoch), or null. */
  lastUsedAt: number | null;
  /** Denied mints by reason and origin, most frequent first. */
  denials: Array<{ reason: string; origin: string; count: number }>;
  /** Successful mints by origin. */
  mintOrigins: Array<{ origin: string; count: number }>;
  rows: UsageRow[];
}

interface PendingBucket {
  key: [string, string, string, string, string];
  n: number;
}

/**
 * Counts mints and renders per key. Events are summed in memory and written as one batch of
 * atomic KV sums at most `USAGE_FLUSH_MS` later, so the mint path never waits on a KV write;
 * a crash loses at most that window of counts.
 */
export class UsageRecorder implements RenderUsageSink {
  readonly #kv: Deno.Kv;
  readonly #clock: () => number;
  readonly #log?: Logger;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #pending = new Map<string, PendingBucket>();
  readonly #lastUsed = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** Events dropped because too many origin look-ups were in flight. */
  dropped = 0;

  /** Records into `kv`; `clock` gives the day bucket. */
  constructor(kv: Deno.Kv, options: { clock?: () => number; log?: Logger } = {}) {
    this.#kv = kv;
    this.#clock = options.clock ?? Date.now;
    this.#log = options.log;
  }

  /** Counts one mint attempt for an existing key (never blocks the caller). */
  recordMint(
    keyId: string,
    outcome: string,
    origin: string | null | undefined,
    allowedOrigins: readonly string[],
  ): void {
    const now = this.#clock();
    const label = origin ?? "(none)";
    if (label === "(none)" || allowedOrigins.includes(label)) {
      this.#count(keyId, now, "mint", outcome, label);
      return;
    }
    // A non-allowlisted origin: name it only while the key's daily quota of names lasts.
    if (this.#inFlight.size >= MAX_IN_FLIGHT) {
      this.dropped++;
      return;
    }
    const p = this.#foreignOriginLabel(keyId, dayOf(now), label)
      .then((detail) => this.#count(keyId, now, "mint", outcome, detail))
      .catch((err) => this.#log?.warn("usage origin lookup failed", { error: err }));
    const tracked = p.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  /** Counts one render of a token minted by `keyId` (`cache`: l1, l2, miss or none). */
  recordRender(keyId: string, outcome: string, cache: string): void {
    this.#count(keyId, this.#clock(), "render", outcome, cache);
  }

  /** Writes every pending count now (tests, shutdown, and the usage pages before reading). */
  async flush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const buckets = [...this.#pending.values()];
    const lastUsed = [...this.#lastUsed];
    this.#pending.clear();
    this.#lastUsed.clear();
    this.#writing = this.#writing.then(() => this.#write(buckets, lastUsed));
    await this.#writing;
  }

  #count(keyId: string, now: number, kind: string, outcome: string, detail: string): void {
    const key: PendingBucket["key"] = [keyId, dayOf(now), kind, outcome.slice(0, 64), detail];
    const id = key.join("\n");
    const bucket = this.#pending.get(id);
    if (bucket) bucket.n++;
    else this.#pending.set(id, { key, n: 1 });
    if (outcome === "ok") this.#lastUsed.set(keyId, now);
    if (this.#pending.size >= MAX_PENDING_BUCKETS) {
      this.flush().catch((err) => this.#log?.warn("usage flush failed", { error: err }));
    } else if (this.#timer === undefined) {
      const timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch((err) => this.#log?.warn("usage flush failed", { error: err }));
      }, USAGE_FLUSH_MS);
      // Pending counts must not keep a finished process alive (shutdown flushes explicitly).
      Deno.unrefTimer(timer as unknown as number);
      this.#timer = timer;
    }
  }

  async #write(buckets: PendingBucket[], lastUsed: Array<[string, number]>): Promise<void> {
    if (buckets.length === 0 && lastUsed.length === 0) return;
    // Only keys that exist are counted (a render names its key through a verified token, but a
    // key may have been deleted since; the usage pages are per existing key).
    const keyIds = [...new Set(buckets.map((b) => b.key[0]).concat(lastUsed.map(([k]) => k)))];
    const exists = new Set<string>();
    for (let i = 0; i < keyIds.length; i += 10) {
      const entries = await this.#kv.getMany(keyIds.slice(i, i + 10).map((k) => ["sdk_keys", k]));
      entries.forEach((e, j) => e.versionstamp !== null && exists.add(keyIds[i + j]));
    }
    const live = buckets.filter((b) => exists.has(b.key[0]));
    for (let i = 0; i < live.length || (i === 0 && lastUsed.length > 0); i += SUMS_PER_WRITE) {
      const op = this.#kv.atomic();
      for (const b of live.slice(i, i + SUMS_PER_WRITE)) op.sum(["usage", ...b.key], BigInt(b.n));
      if (i === 0) {
        for (const [keyId, at] of lastUsed) {
          if (exists.has(keyId)) op.set(["usage_last", keyId], at);
        }
      }
      const res = await op.commit();
      if (!res.ok) this.#log?.warn("usage write refused", { buckets: live.length });
    }
  }

  async #foreignOriginLabel(keyId: string, day: string, origin: string): Promise<string> {
    const label = origin.slice(0, 200);
    const marker = ["usage_origins", keyId, day, label];
    if ((await this.#kv.get(marker)).versionstamp !== null) return label;
    const countKey = ["usage_origin_count", keyId, day];
    const count = await this.#kv.get<Deno.KvU64>(countKey);
    if (Number(count.value?.value ?? 0n) >= MAX_FOREIGN_ORIGINS) return "(other)";
    const res = await this.#kv.atomic()
      .check({ key: marker, versionstamp: null })
      .check(count)
      .set(marker, true, { expireIn: 40 * 86_400_000 })
      .sum(countKey, 1n)
      .commit();
    if (res.ok) return label;
    // A concurrent event may have named this very origin (or taken the last name).
    return (await this.#kv.get(marker)).versionstamp !== null ? label : "(other)";
  }
}

/**
 * Reads a key's counters (all days kept) into the usage page's figures.
 *
 * @example
 * ```ts
 * const s = await usageSummary(kv, keyId);
 * s.mintsOk; s.cacheHitRatio;
 * ```
 */
export async function usageSummary(kv: Deno.Kv, keyId: string): Promise<UsageSummary> {
  const rows: UsageRow[] = [];
  for await (const e of kv.list<Deno.KvU64>({ prefix: ["usage", keyId] })) {
    const [, , day, kind, outcome, detail] = e.key as string[];
    rows.push({
      day,
      kind: kind as UsageRow["kind"],
      outcome,
      detail,
      count: Number(e.value.value),
    });
  }
  const sum = (f: (r: UsageRow) => boolean) => rows.filter(f).reduce((n, r) => n + r.count, 0);
  const renders = sum((r) => r.kind === "render" && r.outcome === "ok");
  const hits = sum((r) => r.kind === "render" && r.outcome === "ok" && r.detail !== "miss");
  const group = (f: (r: UsageRow) => boolean, by: (r: UsageRow) => string) => {
    const m = new Map<string, number>();
    for (const r of rows.filter(f)) m.set(by(r), (m.get(by(r)) ?? 0) + r.count);
    return [...m].sort((a, b) => b[1] - a[1]);
  };
  return {
    keyId,
    mintsOk: sum((r) => r.kind === "mint" && r.outcome === "ok"),
    mintsDenied: sum((r) => r.kind === "mint" && r.outcome !== "ok"),
    renders,
    rendersDenied: sum((r) => r.kind === "render" && r.outcome !== "ok"),
    budgetExhausted: sum((r) => r.kind === "render" && r.outcome === "budget_exhausted"),
    quotaExceeded: sum((r) => r.kind === "render" && r.outcome === "quota_exceeded"),
    cacheHitRatio: renders === 0 ? null : hits / renders,
    lastUsedAt: (await kv.get<number>(["usage_last", keyId])).value,
    denials: group(
      (r) => r.kind === "mint" && r.outcome !== "ok",
      (r) => `${r.outcome}\n${r.detail}`,
    )
      .map(([k, count]) => {
        const [reason, origin] = k.split("\n");
        return { reason, origin, count };
      }),
    mintOrigins: group((r) => r.kind === "mint" && r.outcome === "ok", (r) => r.detail)
      .map(([origin, count]) => ({ origin, count })),
    rows,
  };
}

/** One quota period on the usage page: renders counted and the limit (null = unlimited). */
export interface QuotaPeriodUsage {
  /** Renders counted in the period; null when the counters cannot be read from here. */
  used: number | null;
  limit: number | null;
}

/** A key's render quotas today and this month (UTC), with what is counted against them. */
export interface QuotaUsage {
  day: QuotaPeriodUsage;
  month: QuotaPeriodUsage;
  /**
   * Where `used` comes from: `quota`, the quota counters the render path enforces (a quota is
   * set); `usage`, the usage counters' successful renders (no quota is set, nothing is enforced).
   */
  source: "quota" | "usage";
}

/** Reads quota counters for the usage page. */
export type QuotaCounterReader = { used(keyId: string, nowMs: number): Promise<QuotaCounts> };

/**
 * Where this process reads a key's quota counters: its own render gate (it renders too), else
 * Redis (the counters every render node writes), else nowhere (a hub without Redis cannot see a
 * separate render node's in-process counters).
 */
export function quotaCounterReader(deps: {
  render?: { quotas?: unknown };
  redis?: RedisClient;
  config: { redisPrefix: string };
}): QuotaCounterReader | undefined {
  if (deps.render?.quotas instanceof RenderQuotas) return deps.render.quotas;
  if (deps.redis) return new RedisRenderQuotaStore(deps.redis, deps.config.redisPrefix);
  return undefined;
}

/**
 * The usage page's quota figures for a key with `quota`, at `nowMs`.
 *
 * @example
 * ```ts
 * const q = await quotaUsage(quotaCounterReader(deps), keyId, view.renderQuota, summary.rows, now);
 * q.day.used; q.day.limit;
 * ```
 */
export async function quotaUsage(
  reader: QuotaCounterReader | undefined,
  keyId: string,
  quota: RenderQuota,
  rows: UsageRow[],
  nowMs: number,
): Promise<QuotaUsage> {
  if (quota.day === null && quota.month === null) {
    const p = quotaPeriods(nowMs);
    const renders = (inPeriod: (day: string) => boolean) =>
      rows.filter((r) => r.kind === "render" && r.outcome === "ok" && inPeriod(r.day))
        .reduce((n, r) => n + r.count, 0);
    return {
      day: { used: renders((d) => d === p.day), limit: null },
      month: { used: renders((d) => d.startsWith(p.month)), limit: null },
      source: "usage",
    };
  }
  let counts: QuotaCounts | null = null;
  try {
    counts = reader ? await reader.used(keyId, nowMs) : null;
  } catch {
    // Redis down: the page still shows the limits; the counts say "unavailable".
  }
  return {
    day: { used: counts?.day ?? null, limit: quota.day },
    month: { used: counts?.month ?? null, limit: quota.month },
    source: "quota",
  };
}

/** Usage rows as CSV (RFC 4180), one line per day bucket, with a header. */
export function usageCsv(keyId: string, rows: UsageRow[]): string {
  const lines = ["key_id,day,kind,outcome,detail,count"];
  for (const r of rows) {
    lines.push([keyId, r.day, r.kind, r.outcome, r.detail, String(r.count)].map(csvCell).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

/** One CSV cell, quoted when needed; a leading =, +, -, @ is defused against formula injection. */
export function csvCell(value: string): string {
  const v = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}
