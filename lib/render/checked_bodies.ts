/**
 * A bounded memo of render bodies that already passed the body checks (parse, shape, DAG
 * validation, template instance, parameter values) and of what those checks produced (the DAG
 * hash, the cache key, the meshes the client holds). The DAG itself is not kept, nor returned: only
 * a cache miss needs it, and the evaluating worker parses it from the body's text (no checks: they
 * passed), while holding every parsed DAG would cost several times the body's size. The checks are
 * a pure function of the body bytes and the project version (versions are immutable), and a
 * configurator's popular renders repeat byte for byte across sessions (every visitor's first render
 * is the defaults), so a cache-hit render then costs one map lookup on the body text instead of a
 * JSON parse, a validation and two canonical hashes. The key is the project and the exact body text
 * (not a digest of it: hashing the body with SHA-256 per request was the largest single cost of a
 * cache hit), and the text counts toward the memo's byte bound.
 *
 * Only successes are remembered; a refused body is checked again each time (and stays cheap to
 * refuse). Entries are keyed by project and body text, bounded in total bytes. Concurrent
 * identical bodies are checked once (single flight).
 *
 * A body is remembered when the scene it asks for is seen a second time (a `Doorkeeper` of cache
 * keys): most render bodies are seen once (each position a slider passes through), and remembering
 * them would fill the memo with text that never repeats and push out the bodies that do. A body
 * that repeats is checked twice, then answered from the memo; a burst of identical bodies counts as
 * a second sighting. The doorkeeper is asked with the cache key the checks produce, a digest of the
 * DAG already made, not with the body's text: fingerprinting a 4 KB body cost more than parsing
 * it.
 */
import { LRUCache } from "lru-cache";
import { Doorkeeper } from "../cache/doorkeeper.ts";
import { SingleFlight } from "../cache/single_flight.ts";

/** What the body checks of one render body produced. */
export interface CheckedBody {
  /** The project version the body asked for (undefined = current at the time). */
  requestedVersion?: number;
  /** The version and template hash it was checked against. */
  version: number;
  templateHash: string;
  dagHash: string;
  cacheKey: string;
  have: readonly string[];
  /** Whether the project is python-mode (evaluated under the stricter limits). */
  python: boolean;
}

/** A bounded memo of checked render bodies. */
export class CheckedBodies {
  readonly #memo: LRUCache<string, CheckedBody>;
  readonly #flight = new SingleFlight<CheckedBody>();
  readonly #doorkeeper = new Doorkeeper();

  /**
   * `maxBytes` bounds the memo by the approximate bytes of its entries, body text included
   * (default 8 MiB).
   */
  constructor(options: { maxBytes?: number } = {}) {
    this.#memo = new LRUCache<string, CheckedBody, unknown>({
      maxSize: options.maxBytes ?? 8 * 1024 * 1024,
      // A one-byte string holds a byte per character; a body with non-Latin-1 text holds two.
      sizeCalculation: (entry, key) => 512 + key.length * 2 + entry.have.length * 80,
    });
  }

  /**
   * The key a body (its exact text) is remembered under for `project`.
   *
   * @example
   * ```ts
   * const key = CheckedBodies.key("wall-bracket", bodyText);
   * ```
   */
  static key(project: string, body: string): string {
    return project + "\n" + body;
  }

  /** The remembered result for `key`, if any. */
  get(key: string): CheckedBody | undefined {
    return this.#memo.get(key);
  }

  /** Remembers a body that passed every check. */
  set(key: string, checked: CheckedBody): void {
    this.#memo.set(key, checked);
  }

  /**
   * Runs `check` once for all concurrent callers with the same key (a burst of identical
   * renders parses and validates once) and remembers its result when it succeeds and its scene
   * was seen before: by an earlier check of any body with the same cache key, or by a concurrent
   * caller that shared this one.
   */
  async check(key: string, check: () => Promise<CheckedBody>): Promise<CheckedBody> {
    const flight = this.#flight.run(key, check);
    const checked = await flight.promise;
    const seen = flight.shared || this.#doorkeeper.seenBefore(checked.cacheKey);
    if (seen && !this.#memo.has(key)) this.set(key, checked);
    return checked;
  }

  /** How many bodies are remembered. */
  get size(): number {
    return this.#memo.size;
  }
}
