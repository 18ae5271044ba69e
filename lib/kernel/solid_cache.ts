/**
 * Solids a render worker keeps between evaluations, so that a render which changes some
 * parameters rebuilds only the nodes those parameters reach (docs/dag.md, "Reuse between
 * renders"). A shopper who picks another color, or another bore for the same gear, gets the gear's
 * body — twelve of its fifteen milliseconds — from here instead of from a new union.
 *
 * - **Exact keys.** A key names a node's result completely (`subtree_keys.ts`: template shape,
 *   limits, node, the values it reaches), compared as whole strings: no hash, so no collision can
 *   hand one partner's solid to another's render.
 * - **Bounded.** At most `maxTriangles` triangles in at most `maxEntries` solids, least recently
 *   used first out. manifold-3d objects are not garbage collected: this cache owns what it holds
 *   and deletes it when it lets go.
 * - **Admitted while there is room, then on a second sighting** (`admits`). Replacing solids is
 *   not free: a cache that evicted one for every new one, and never hit, cost 0.3–0.4 ms of a
 *   15 ms gear render (the evicted solids' memory has gone cold by then), and a burst of renders
 *   that each change the gear's teeth would pay that for nothing. So once the cache is full, a
 *   solid displaces others only when its key was offered before (among the last 64 keys): a
 *   shopper dragging the bore slider repeats the body's key from the second render on.
 * - **Safe during a walk.** A solid taken or kept by the walk under way is never evicted before the
 *   next walk begins (`beginWalk`): that walk's values may still point at it. When only those
 *   remain and there is no room, `keep` declines, and the walk frees the solid itself as before.
 *
 * One per render worker (module state bounded as above); the pool never runs two walks on a worker
 * at once, and a walk's use of the cache is synchronous.
 */
import type { Manifold } from "manifold-3d";
import { safeDelete } from "./ops/values.ts";

/** What a reused node brings besides its solid: every node its evaluation computed, and the
 * numbers among them (what `effective_values.ts` reads). */
export interface SubtreeRecord {
  readonly computed: readonly string[];
  readonly numbers: readonly (readonly [string, number])[];
}

/** A kept solid, and what its evaluation computed. */
export interface CachedSolid extends SubtreeRecord {
  readonly m: Manifold;
}

/** Bounds of a SolidCache. */
export interface SolidCacheLimits {
  /** Triangles held at most (0 keeps nothing). */
  maxTriangles: number;
  /** Solids held at most. */
  maxEntries: number;
}

/** How often the cache served, and what it holds (for tests and metrics). */
export interface SolidCacheStats {
  hits: number;
  kept: number;
  evicted: number;
  entries: number;
  triangles: number;
}

/** Keys remembered as offered once (insertion order; oldest out). */
const MAX_SIGHTINGS = 64;

interface Held extends CachedSolid {
  triangles: number;
  /** The walk that last took or kept it. */
  walk: number;
}

/**
 * The default bounds: six solids the size of the spur gear's body, or one of the vase. manifold-3d
 * holds some 400 bytes per triangle (halfedges, tangents, normals, its collision tree), so a full
 * cache adds about 4 MiB to a worker's resident memory (docs/dag.md).
 */
export const DEFAULT_SOLID_CACHE_LIMITS: Readonly<SolidCacheLimits> = Object.freeze({
  maxTriangles: 10_000,
  maxEntries: 16,
});

/** Solids kept between evaluations by exact key, bounded in triangles and entries (LRU). */
export class SolidCache {
  /** In least recently used order (a Map iterates in insertion order; use re-inserts). */
  readonly #held = new Map<string, Held>();
  readonly #sightings = new Set<string>();
  #limits: SolidCacheLimits;
  #triangles = 0;
  #walk = 0;
  #hits = 0;
  #kept = 0;
  #evicted = 0;

  /** A cache within `limits`. */
  constructor(limits: SolidCacheLimits = DEFAULT_SOLID_CACHE_LIMITS) {
    this.#limits = { ...limits };
  }

  /** Changes the bounds, evicting what no longer fits. */
  setLimits(limits: SolidCacheLimits): void {
    if (
      limits.maxTriangles === this.#limits.maxTriangles &&
      limits.maxEntries === this.#limits.maxEntries
    ) return;
    this.#limits = { ...limits };
    this.beginWalk();
    this.#makeRoom(0, 0);
  }

  /** Starts a walk: solids the previous walk used may be evicted again. */
  beginWalk(): void {
    this.#walk++;
  }

  /** The solid kept under `key`, if any; it stays until the next walk begins. */
  take(key: string): CachedSolid | undefined {
    const held = this.#held.get(key);
    if (held === undefined) return undefined;
    this.#held.delete(key);
    this.#held.set(key, held);
    held.walk = this.#walk;
    this.#hits++;
    return held;
  }

  /**
   * Records that a solid of `triangles` under `key` is offered, and whether it is worth keeping:
   * when it fits without evicting anything, or when its key was offered before (among the last
   * `MAX_SIGHTINGS` keys).
   */
  admits(key: string, triangles: number): boolean {
    const seen = this.#sightings.has(key);
    if (!seen) {
      if (this.#sightings.size >= MAX_SIGHTINGS) {
        this.#sightings.delete(this.#sightings.values().next().value!);
      }
      this.#sightings.add(key);
    }
    const { maxTriangles, maxEntries } = this.#limits;
    return seen ||
      (this.#triangles + triangles <= maxTriangles && this.#held.size < maxEntries);
  }

  /**
   * Keeps `m` under `key` and takes ownership of it (true), or declines and leaves it with the
   * caller (false): above the bound alone, already kept, or no room outside the walk under way.
   */
  keep(key: string, m: Manifold, record: SubtreeRecord): boolean {
    const { maxTriangles, maxEntries } = this.#limits;
    const triangles = m.numTri();
    if (maxEntries < 1 || triangles > maxTriangles || this.#held.has(key)) return false;
    if (!this.#makeRoom(triangles, 1)) return false;
    this.#held.set(key, { m, triangles, walk: this.#walk, ...record });
    this.#triangles += triangles;
    this.#kept++;
    return true;
  }

  /** Deletes every solid held (none may be in use: call between walks). */
  clear(): void {
    for (const held of this.#held.values()) safeDelete(held.m);
    this.#held.clear();
    this.#triangles = 0;
  }

  /** Hits, keeps and evictions so far, and what is held now. */
  stats(): SolidCacheStats {
    return {
      hits: this.#hits,
      kept: this.#kept,
      evicted: this.#evicted,
      entries: this.#held.size,
      triangles: this.#triangles,
    };
  }

  /** Evicts least recently used solids not in use until `triangles` and `entries` more fit. */
  #makeRoom(triangles: number, entries: number): boolean {
    const { maxTriangles, maxEntries } = this.#limits;
    const fits = () =>
      this.#triangles + triangles <= maxTriangles && this.#held.size + entries <= maxEntries;
    if (fits()) return true;
    for (const [key, held] of this.#held) {
      if (held.walk === this.#walk) continue;
      this.#held.delete(key);
      this.#triangles -= held.triangles;
      this.#evicted++;
      safeDelete(held.m);
      if (fits()) return true;
    }
    return false;
  }
}
