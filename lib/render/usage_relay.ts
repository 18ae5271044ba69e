/**
 * A kernel node's usage counters (issue 17): a `ROLE=kernel` process has no Deno KV, so its render
 * events go to Redis and the hub moves them into KV (lib/hub/usage_drain.ts). Events are summed in
 * memory and added at most `USAGE_FLUSH_MS` later, off the request path, with one Lua script per
 * batch into one of `RELAY_SHARDS` hashes `<prefix>usage-relay:{usage-relay-<n>}` (HINCRBY per
 * bucket field; one key per call, so it works on a Redis Cluster). A batch Redis does not take
 * (down, stalled) is dropped with a warning and counted in `dropped` and
 * `kernel_usage_dropped_total`: usage is a report, not money (budgets and quotas are enforced
 * elsewhere and fail closed). Nothing is retried, so nothing is counted twice.
 */
import type { Logger } from "../ops/logger.ts";
import type { Counter } from "../ops/metrics.ts";
import type { RedisClient } from "../redis/client.ts";
import { RedisScript } from "../redis/script.ts";
import { dayOf, type RenderUsageSink, USAGE_FLUSH_MS } from "./usage_sink.ts";

/** Relay hashes; each in its own slot, so a cluster spreads them over its masters. */
export const RELAY_SHARDS = 16;
/** A relay hash nobody drains (no hub with Redis) is dropped this long after its last write. */
const RELAY_TTL_S = 7 * 86_400;
/** Distinct buckets held in memory before a flush is forced. */
const MAX_PENDING_BUCKETS = 500;

/** The relay hash of `shard`, where kernel nodes add their counts. */
export function relayKey(prefix: string, shard: number): string {
  return `${prefix}usage-relay:{usage-relay-${shard}}`;
}

/** The hash a hub moved `shard`'s counts to while it applies them (same slot). */
export function claimedKey(prefix: string, shard: number): string {
  return `${relayKey(prefix, shard)}:claimed`;
}

/**
 * Field names of a relay hash: `c\n<keyId>\n<day>\n<kind>\n<outcome>\n<detail>` a count,
 * `l\n<keyId>` the last successful use (ms, the maximum is kept), `b` a claimed batch's id.
 */
export const COUNT_FIELD = "c";
/** The last-used field's tag (see `COUNT_FIELD`). */
export const LAST_FIELD = "l";
/** The batch-id field of a claimed hash (see `COUNT_FIELD`). */
export const BATCH_FIELD = "b";

// ARGV: field, value pairs. Counts are added; last-used keeps the larger value.
const ADD = `
for i = 1, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i + 1]
  if string.sub(f, 1, 1) == '${LAST_FIELD}' then
    local cur = tonumber(redis.call('HGET', KEYS[1], f) or '0')
    if tonumber(v) > cur then redis.call('HSET', KEYS[1], f, v) end
  else
    redis.call('HINCRBY', KEYS[1], f, v)
  end
end
redis.call('EXPIRE', KEYS[1], ${RELAY_TTL_S})
return 1`;

/** Counts a kernel node's renders into Redis for the hub to apply (same calls as UsageRecorder). */
export class UsageRelay implements RenderUsageSink {
  readonly #add: RedisScript;
  readonly #prefix: string;
  readonly #clock: () => number;
  readonly #log?: Logger;
  readonly #droppedMetric?: Counter;
  readonly #pending = new Map<string, number>();
  readonly #lastUsed = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** Render events dropped because Redis did not take their batch. */
  dropped = 0;

  /** Adds to `redis` under `prefix`; `dropped` counts lost events for `/metrics`. */
  constructor(
    redis: RedisClient,
    options: { prefix: string; clock?: () => number; log?: Logger; dropped?: Counter },
  ) {
    this.#add = new RedisScript(redis, ADD);
    this.#prefix = options.prefix;
    this.#clock = options.clock ?? Date.now;
    this.#log = options.log;
    this.#droppedMetric = options.dropped;
  }

  /** Counts one render of a token minted by `keyId` (`cache`: l1, l2, miss or none). */
  recordRender(keyId: string, outcome: string, cache: string): void {
    const now = this.#clock();
    const field = [COUNT_FIELD, keyId, dayOf(now), "render", outcome.slice(0, 64), cache].join(
      "\n",
    );
    this.#pending.set(field, (this.#pending.get(field) ?? 0) + 1);
    if (outcome === "ok") this.#lastUsed.set(keyId, now);
    if (this.#pending.size >= MAX_PENDING_BUCKETS) {
      this.flush().catch((err) => this.#log?.warn("usage relay flush failed", { error: err }));
    } else if (this.#timer === undefined) {
      const timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch((err) => this.#log?.warn("usage relay flush failed", { error: err }));
      }, USAGE_FLUSH_MS);
      // Pending counts must not keep a finished process alive (shutdown flushes explicitly).
      Deno.unrefTimer(timer as unknown as number);
      this.#timer = timer;
    }
  }

  /** Sends every pending count to Redis now (shutdown, tests); a refused batch is dropped. */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const args: string[] = [];
    let events = 0;
    for (const [field, n] of this.#pending) {
      args.push(field, String(n));
      events += n;
    }
    for (const [keyId, at] of this.#lastUsed) args.push(`${LAST_FIELD}\n${keyId}`, String(at));
    this.#pending.clear();
    this.#lastUsed.clear();
    if (args.length === 0) return;
    this.#writing = this.#writing.then(() => this.#send(args, events));
    await this.#writing;
  }

  async #send(args: string[], events: number): Promise<void> {
    const shard = Math.floor(Math.random() * RELAY_SHARDS);
    try {
      await this.#add.run([relayKey(this.#prefix, shard)], args);
    } catch (err) {
      this.dropped += events;
      this.#droppedMetric?.inc({}, events);
      this.#log?.warn("usage relay: Redis did not take a batch; its render counts are dropped", {
        events,
        error: (err as Error)?.message,
      });
    }
  }
}
