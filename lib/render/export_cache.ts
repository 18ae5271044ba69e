/**
 * The two-level cache of export files (docs/exports.md), beside the render cache and built like
 * it: L1 an in-process LRU bounded in bytes, L2 Redis with a TTL (the file as base64 text), both
 * keyed by format and the render cache key (`sha256(kernelVersion + "\n" + dagHash)`), so a
 * configuration's GLB, STL and 3MF are built once each per kernel version. Concurrent identical
 * misses build once. Redis trouble never fails an export: L2 is skipped (logged once per outage).
 */
import { LRUCache } from "lru-cache";
import { Buffer } from "node:buffer";
import type { CacheLevel } from "../dag/render_response.ts";
import type { ExportFormat } from "../dag/export_format.ts";
import type { Logger } from "../ops/logger.ts";
import type { RedisClient } from "../redis/client.ts";
import { SingleFlight } from "../cache/single_flight.ts";

/** Sizes and lifetimes of the export cache levels. */
export interface ExportCacheOptions {
  redis?: RedisClient;
  prefix: string;
  log: Logger;
  /** L1 bound in bytes. Default 32 MiB. */
  l1MaxBytes?: number;
  /** L2 time to live in seconds. Default 7 days. */
  l2TtlSeconds?: number;
  /** Largest file stored in L2, in bytes. Default 24 MiB. */
  l2MaxBytes?: number;
}

/** Export files by format and render cache key, with single-flight building. */
export class ExportCache {
  readonly #l1: LRUCache<string, Uint8Array>;
  readonly #redis?: RedisClient;
  readonly #prefix: string;
  readonly #log: Logger;
  readonly #ttl: number;
  readonly #l2Max: number;
  readonly #flight = new SingleFlight<{ file: Uint8Array; cache: CacheLevel }>();
  #l2Down = false;

  /** Creates the cache; without `redis` only L1 exists. */
  constructor(options: ExportCacheOptions) {
    this.#l1 = new LRUCache<string, Uint8Array>({
      maxSize: options.l1MaxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (file) => Math.max(1, file.length),
    });
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#log = options.log;
    this.#ttl = options.l2TtlSeconds ?? 7 * 24 * 3600;
    this.#l2Max = options.l2MaxBytes ?? 24 * 1024 * 1024;
  }

  /**
   * The `format` file of the configuration with render cache key `key`: from L1, else L2, else
   * `build()` (once for all concurrent callers), stored in the levels above where it came from.
   *
   * @example
   * ```ts
   * const { file, cache } = await exports.getOrBuild("glb", key, () => pool.exportFile(dag, "glb", slug));
   * ```
   */
  async getOrBuild(
    format: ExportFormat,
    key: string,
    build: () => Promise<Uint8Array>,
  ): Promise<{ file: Uint8Array; cache: CacheLevel }> {
    const id = `${format}:${key}`;
    const hit = this.#l1.get(id);
    if (hit) return { file: hit, cache: "l1" };
    return await this.#flight.run(id, async () => {
      const fromL2 = await this.#l2Get(id);
      if (fromL2) {
        this.#l1.set(id, fromL2);
        return { file: fromL2, cache: "l2" as const };
      }
      const file = await build();
      this.#l1.set(id, file);
      void this.#l2Set(id, file);
      return { file, cache: "miss" as const };
    }).promise;
  }

  /** Drops everything from L1 (tests, memory pressure). */
  clearL1(): void {
    this.#l1.clear();
  }

  async #l2Get(id: string): Promise<Uint8Array | undefined> {
    if (!this.#redis) return undefined;
    try {
      const text = await this.#redis.get(this.#l2Key(id));
      this.#l2Up();
      return typeof text === "string" ? new Uint8Array(Buffer.from(text, "base64")) : undefined;
    } catch (err) {
      this.#l2Failed(err);
      return undefined;
    }
  }

  async #l2Set(id: string, file: Uint8Array): Promise<void> {
    if (!this.#redis || file.length > this.#l2Max) return;
    try {
      await this.#redis.set(
        this.#l2Key(id),
        Buffer.from(file.buffer, file.byteOffset, file.length).toString("base64"),
        {
          expiration: { type: "EX", value: this.#ttl },
        },
      );
      this.#l2Up();
    } catch (err) {
      this.#l2Failed(err);
    }
  }

  #l2Key(id: string): string {
    return `${this.#prefix}export:v1:${id}`;
  }

  #l2Up(): void {
    if (this.#l2Down) this.#log.info("export cache L2 (Redis) is back");
    this.#l2Down = false;
  }

  #l2Failed(err: unknown): void {
    if (!this.#l2Down) {
      this.#log.warn("export cache L2 (Redis) unavailable; serving from L1 and building", {
        error: err,
      });
    }
    this.#l2Down = true;
  }
}
