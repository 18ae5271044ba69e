/**
 * Moves kernel nodes' render counts from Redis (lib/render/usage_relay.ts) into the usage
 * counters in Deno KV (lib/hub/usage.ts), every `USAGE_FLUSH_MS`, on every hub that has Redis.
 * Each relay shard is drained in three steps, each safe to repeat after a crash:
 *
 * 1. **claim**: a script renames the shard's hash to its `:claimed` twin (only when no claimed
 *    batch is left: never over an unfinished one) and stamps it with a random batch id. Kernels then write to a fresh hash, so
 *    the claimed one never changes.
 * 2. **apply**: its count fields, sorted, are cut into chunks of `SUMS_PER_WRITE`; each chunk is one
 *    KV atomic operation that adds the sums and records `["usage_relay_applied", batch, chunk]`,
 *    on condition that this marker is absent. A chunk is thus applied once, whichever hub and
 *    however many times it is tried.
 * 3. **release**: the claimed hash is deleted if it still holds that batch.
 *
 * A hub that stops anywhere in between leaves the claimed hash; the next drain (any hub) applies
 * the chunks without a marker and releases it. Markers are kept 30 days, so a claimed batch left
 * longer than that would be applied again. Counts of keys that no longer exist are dropped, as
 * the recorder does.
 */
import type { Logger } from "../ops/logger.ts";
import type { RedisClient } from "../redis/client.ts";
import { RedisScript } from "../redis/script.ts";
import {
  BATCH_FIELD,
  claimedKey,
  COUNT_FIELD,
  LAST_FIELD,
  RELAY_SHARDS,
  relayKey,
} from "../render/usage_relay.ts";
import { USAGE_FLUSH_MS } from "../render/usage_sink.ts";

/** Sums per KV atomic operation (Deno KV allows 1000 mutations; a chunk has checks too). */
const SUMS_PER_WRITE = 200;
/** How long an applied chunk's marker is kept. */
const MARKER_TTL_MS = 30 * 86_400_000;

// KEYS: the relay hash, its claimed twin; ARGV: a new batch id. 1 when a claimed batch exists.
const CLAIM = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('PERSIST', KEYS[2])
redis.call('HSET', KEYS[2], '${BATCH_FIELD}', ARGV[1])
return 1`;

// KEYS: the claimed hash; ARGV: its batch id. Deletes it only if it still holds that batch.
const RELEASE = `
if redis.call('HGET', KEYS[1], '${BATCH_FIELD}') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/** A claimed batch read back from Redis. */
export interface ClaimedBatch {
  id: string;
  /** `[keyId, day, kind, outcome, detail]` and the count, sorted by field. */
  counts: Array<{ key: [string, string, string, string, string]; n: number }>;
  lastUsed: Array<[string, number]>;
}

/** Drains the kernel nodes' usage relay into KV. */
export class UsageDrain {
  readonly #kv: Deno.Kv;
  readonly #redis: RedisClient;
  readonly #claim: RedisScript;
  readonly #release: RedisScript;
  readonly #prefix: string;
  readonly #log?: Logger;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  /** Drains `redis` (relay under `prefix`) into `kv`. */
  constructor(kv: Deno.Kv, redis: RedisClient, options: { prefix: string; log?: Logger }) {
    this.#kv = kv;
    this.#redis = redis;
    this.#claim = new RedisScript(redis, CLAIM);
    this.#release = new RedisScript(redis, RELEASE);
    this.#prefix = options.prefix;
    this.#log = options.log;
  }

  /** Drains every `intervalMs` until `stop()`. */
  start(intervalMs = USAGE_FLUSH_MS): void {
    this.#stopped = false;
    const tick = () => {
      this.#timer = undefined;
      this.#running = this.drainOnce().then(() => {}, () => {}).finally(() => {
        this.#running = undefined;
        if (!this.#stopped) schedule();
      });
    };
    const schedule = () => {
      this.#timer = setTimeout(tick, intervalMs);
      Deno.unrefTimer(this.#timer as unknown as number);
    };
    schedule();
  }

  /** Stops draining and waits for a drain in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Drains every shard once; returns the render events applied (a failing shard is logged). */
  async drainOnce(): Promise<number> {
    let applied = 0;
    for (let shard = 0; shard < RELAY_SHARDS; shard++) {
      try {
        if (!(await this.claim(shard))) continue;
        const batch = await this.read(shard);
        if (!batch) continue;
        applied += await this.apply(batch);
        await this.release(shard, batch.id);
      } catch (err) {
        this.#log?.warn("usage drain failed; the batch stays claimed for the next try", {
          shard,
          error: (err as Error)?.message,
        });
      }
    }
    return applied;
  }

  /** Step 1: claims `shard`'s counts (or finds an unfinished claim); false when there is none. */
  async claim(shard: number): Promise<boolean> {
    const keys = [relayKey(this.#prefix, shard), claimedKey(this.#prefix, shard)];
    return Number(await this.#claim.run(keys, [crypto.randomUUID()])) === 1;
  }

  /** The claimed batch of `shard`, or null when none is claimed. */
  async read(shard: number): Promise<ClaimedBatch | null> {
    const hash = await this.#redis.hGetAll(claimedKey(this.#prefix, shard)) as Record<
      string,
      string
    >;
    const id = hash[BATCH_FIELD];
    if (!id) return null;
    const counts: ClaimedBatch["counts"] = [];
    const lastUsed: ClaimedBatch["lastUsed"] = [];
    for (const field of Object.keys(hash).sort()) {
      const parts = field.split("\n");
      if (parts[0] === COUNT_FIELD && parts.length === 6) {
        counts.push({ key: parts.slice(1) as ClaimedBatch["counts"][0]["key"], n: +hash[field] });
      } else if (parts[0] === LAST_FIELD && parts.length === 2) {
        lastUsed.push([parts[1], +hash[field]]);
      }
    }
    return { id, counts, lastUsed };
  }

  /**
   * Step 2: adds `batch` to KV, each chunk at most once, and moves the keys' last use forward;
   * returns the events this call added.
   */
  async apply(batch: ClaimedBatch): Promise<number> {
    let added = 0;
    const chunks = Math.max(1, Math.ceil(batch.counts.length / SUMS_PER_WRITE));
    for (let i = 0; i < chunks; i++) {
      const chunk = batch.counts.slice(i * SUMS_PER_WRITE, (i + 1) * SUMS_PER_WRITE);
      added += await this.#applyChunk(batch.id, i, chunk);
    }
    for (const [keyId, at] of batch.lastUsed) await this.#applyLastUsed(keyId, at);
    return added;
  }

  /** Step 3: deletes `shard`'s claimed hash if it still holds batch `id`. */
  async release(shard: number, id: string): Promise<void> {
    await this.#release.run([claimedKey(this.#prefix, shard)], [id]);
  }

  async #applyChunk(
    id: string,
    index: number,
    counts: ClaimedBatch["counts"],
  ): Promise<number> {
    const marker = ["usage_relay_applied", id, index];
    const keyIds = [...new Set(counts.map((c) => c.key[0]))];
    for (;;) {
      if ((await this.#kv.get(marker)).versionstamp !== null) return 0;
      const exists = new Set<string>();
      for (let i = 0; i < keyIds.length; i += 10) {
        const slice = keyIds.slice(i, i + 10);
        const entries = await this.#kv.getMany(slice.map((k) => ["sdk_keys", k]));
        entries.forEach((e, j) => e.versionstamp !== null && exists.add(slice[j]));
      }
      const op = this.#kv.atomic().check({ key: marker, versionstamp: null });
      let added = 0;
      for (const c of counts) {
        if (!exists.has(c.key[0]) || !(c.n > 0)) continue;
        op.sum(["usage", ...c.key], BigInt(c.n));
        added += c.n;
      }
      op.set(marker, true, { expireIn: MARKER_TTL_MS });
      if ((await op.commit()).ok) return added;
      // The marker appeared meanwhile (another hub applied this chunk): look again.
    }
  }

  /** Keeps the later of KV's last use and the kernel's (idempotent: no marker needed). */
  async #applyLastUsed(keyId: string, at: number): Promise<void> {
    for (;;) {
      const cur = await this.#kv.get<number>(["usage_last", keyId]);
      if (typeof cur.value === "number" && cur.value >= at) return;
      if ((await this.#kv.get(["sdk_keys", keyId])).versionstamp === null) return;
      const res = await this.#kv.atomic().check(cur).set(["usage_last", keyId], at).commit();
      if (res.ok) return;
    }
  }
}
