/**
 * A short-lived in-process cache of SDK key records for the mint path, which would otherwise read
 * Deno KV on every request. Staleness is bounded by `ttlMs` (default 2 s): an edit or a revocation
 * reaches minting within that bound, and a revoked key's tokens are refused at render time by
 * `client_id` whenever they were minted (docs/tokens.md, Revocation), so a token minted in the
 * window is useless. When a record expires under load, the requests that miss it together share one
 * read (single flight) instead of each reading Deno KV.
 */
import { LRUCache } from "lru-cache";
import { SingleFlight } from "../cache/single_flight.ts";
import { getSdkKey, type SdkKeyRecord } from "./sdk_keys.ts";

/** Default staleness bound of cached key records, in milliseconds. */
export const KEY_CACHE_TTL_MS = 2000;

/** Cached reads of `["sdk_keys", keyId]`. */
export class SdkKeyCache {
  readonly #kv: Deno.Kv;
  readonly #cache: LRUCache<string, SdkKeyRecord>;
  readonly #reads = new SingleFlight<SdkKeyRecord | null>();
  /** Bumped by `invalidate`: a read begun before it neither fills the cache nor is joined after. */
  #epoch = 0;

  /** Caches at most `max` records for `ttlMs` each. */
  constructor(kv: Deno.Kv, options: { ttlMs?: number; max?: number } = {}) {
    this.#kv = kv;
    this.#cache = new LRUCache({
      max: options.max ?? 10_000,
      ttl: options.ttlMs ?? KEY_CACHE_TTL_MS,
      // Read the clock on each get: the default (cache it for 1 ms) arms a timer per millisecond,
      // which costs more on the mint path than the clock reads it saves.
      ttlResolution: 0,
    });
  }

  /** The key record, from cache when fresh; unknown keys are not cached (a new key works at once). */
  async get(keyId: string): Promise<SdkKeyRecord | null> {
    const hit = this.#cache.get(keyId);
    if (hit) return hit;
    const epoch = this.#epoch;
    return await this.#reads.run(`${epoch}:${keyId}`, async () => {
      const record = await getSdkKey(this.#kv, keyId);
      if (record && epoch === this.#epoch) this.#cache.set(keyId, record);
      return record;
    }).promise;
  }

  /** Forgets one key (after an edit made by this process). */
  invalidate(keyId: string): void {
    this.#epoch++;
    this.#cache.delete(keyId);
  }
}
