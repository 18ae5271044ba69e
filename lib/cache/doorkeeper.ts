/**
 * A cache's admission filter: it remembers a fingerprint of each key it is asked about, so that a
 * cache admits a key on its second sighting and one-off keys (every distinct slider position a
 * shopper drags through) do not fill it or push out the keys that repeat. This is the
 * "doorkeeper" of TinyLFU (Einziger, Friedman, Manes) and a CDN's "cache on second hit".
 *
 * The fingerprints are 30-bit FNV-1a hashes of the key's characters, kept in two generations of at
 * most `window / 2` each: when the current one fills, it becomes the previous one and the oldest is
 * dropped, so the filter remembers between `window / 2` and `window` of the latest distinct keys in
 * a few hundred kilobytes at most, whatever the keys' length. Two keys that share a fingerprint
 * only let the second in one sighting early.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** 30 bits keep a fingerprint a small integer in V8, held in the set without a heap number. */
const FINGERPRINT_MASK = 0x3fffffff;

/** Remembers which keys were seen before, in a bounded window of recent distinct keys. */
export class Doorkeeper {
  readonly #half: number;
  #current = new Set<number>();
  #previous = new Set<number>();

  /** `window` bounds how many distinct recent keys are remembered (default 32,768). */
  constructor(window = 32_768) {
    this.#half = Math.max(1, Math.floor(window / 2));
  }

  /**
   * Whether `key` was seen before within the window; records this sighting.
   *
   * @example
   * ```ts
   * const doorkeeper = new Doorkeeper();
   * doorkeeper.seenBefore("a"); // false
   * doorkeeper.seenBefore("a"); // true
   * ```
   */
  seenBefore(key: string): boolean {
    const print = fingerprint(key);
    if (this.#current.has(print) || this.#previous.has(print)) return true;
    if (this.#current.size >= this.#half) {
      this.#previous = this.#current;
      this.#current = new Set();
    }
    this.#current.add(print);
    return false;
  }

  /** How many fingerprints are held now. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }
}

/** The 30-bit FNV-1a hash of a string's UTF-16 code units. */
function fingerprint(key: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) {
    hash = Math.imul(hash ^ key.charCodeAt(i), FNV_PRIME);
  }
  return (hash >>> 0) & FINGERPRINT_MASK;
}
