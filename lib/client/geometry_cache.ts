/**
 * The client's geometry cache: decoded meshes by mesh hash, least recently used first out, bounded
 * by the bytes the meshes hold (a mesh's size varies by orders of magnitude, so a count bound would
 * say nothing about memory). Its keys are what the render client sends as `have`, so the render
 * service leaves those meshes out of its answer.
 *
 * Deliberately tiny (a `Map` keeps insertion order, which is all an LRU needs) rather than
 * `lru-cache`, to keep the browser bundle small.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { DecodedMesh } from "./mesh_decode.ts";

/** Default bound: 64 MiB of vertex and index data. */
export const DEFAULT_GEOMETRY_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * An LRU of decoded meshes by hash, bounded in bytes.
 *
 * @example
 * ```ts
 * const cache = new GeometryCache({ maxBytes: 32 * 1024 * 1024 });
 * cache.set(mesh.hash, mesh);
 * const have = cache.keys().slice(0, 256); // most recently used first
 * ```
 */
export class GeometryCache {
  /** The most bytes held at once. */
  readonly maxBytes: number;
  // Least recently used first: `get` and `set` move an entry to the end.
  readonly #entries = new Map<string, DecodedMesh>();
  #bytes = 0;

  /** An empty cache holding at most `maxBytes` (default 64 MiB). */
  constructor(options: { maxBytes?: number } = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_GEOMETRY_CACHE_BYTES;
    if (!(maxBytes >= 0)) throw new TypeError("maxBytes must be a non-negative number");
    this.maxBytes = maxBytes;
  }

  /** Whether `hash` is held (does not count as a use). */
  has(hash: string): boolean {
    return this.#entries.has(hash);
  }

  /** The mesh for `hash`, marking it most recently used; undefined when not held. */
  get(hash: string): DecodedMesh | undefined {
    const mesh = this.#entries.get(hash);
    if (mesh === undefined) return undefined;
    this.#entries.delete(hash);
    this.#entries.set(hash, mesh);
    return mesh;
  }

  /**
   * Holds `mesh` under `hash` as the most recently used, evicting the least recently used until
   * it fits. A mesh larger than the whole bound is not held (returns false); callers keep their
   * own reference, so the scene that needs it still draws.
   */
  set(hash: string, mesh: DecodedMesh): boolean {
    this.delete(hash);
    if (mesh.byteLength > this.maxBytes) return false;
    this.#entries.set(hash, mesh);
    this.#bytes += mesh.byteLength;
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.byteLength;
    }
    return true;
  }

  /** Drops `hash`; returns whether it was held. */
  delete(hash: string): boolean {
    const mesh = this.#entries.get(hash);
    if (mesh === undefined) return false;
    this.#entries.delete(hash);
    this.#bytes -= mesh.byteLength;
    return true;
  }

  /** The held hashes, most recently used first (the order to send as `have`). */
  keys(): string[] {
    return [...this.#entries.keys()].reverse();
  }

  /** How many meshes are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** How many bytes the held meshes take. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Drops everything. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
