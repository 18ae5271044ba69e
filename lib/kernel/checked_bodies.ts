/**
 * A bounded memo of render bodies that already passed the body checks (parse, shape, DAG
 * validation, template instance, parameter values) and of what those checks produced (the DAG
 * hash, the cache key, the meshes the client holds). The DAG itself is not kept: only a cache
 * miss needs it, and then re-parsing the same bytes (no checks: they passed) is cheap next to the
 * evaluation, while holding every parsed DAG would cost several times the body's size. The checks are a pure function of the body bytes and the project
 * version (versions are immutable), and a configurator's popular renders repeat byte for byte
 * across sessions (every visitor's first render is the defaults), so a cache-hit render then costs
 * one SHA-256 of the body instead of a JSON parse, a validation and two canonical hashes.
 *
 * Only successes are remembered; a refused body is checked again each time (and stays cheap to
 * refuse). Entries are keyed by project and body digest, bounded in total bytes. Concurrent
 * identical bodies are checked once (single flight).
 */
import { LRUCache } from "lru-cache";
import { SingleFlight } from "../cache/single_flight.ts";
import type { Dag } from "./dag_types.ts";

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

/** A freshly checked body: what is remembered, and the DAG for this request. */
export interface FreshlyCheckedBody {
  checked: CheckedBody;
  dag: Dag;
}

/** A bounded memo of checked render bodies. */
export class CheckedBodies {
  readonly #memo: LRUCache<string, CheckedBody>;
  readonly #flight = new SingleFlight<FreshlyCheckedBody>();

  /** `maxBytes` bounds the memo by the approximate bytes of its entries (default 8 MiB). */
  constructor(options: { maxBytes?: number } = {}) {
    this.#memo = new LRUCache<string, CheckedBody, unknown>({
      maxSize: options.maxBytes ?? 8 * 1024 * 1024,
      sizeCalculation: (entry) => 512 + entry.have.length * 80,
    });
  }

  /**
   * The digest a body is remembered under for `project`.
   *
   * @example
   * ```ts
   * const digest = await CheckedBodies.digest("wall-bracket", bodyBytes);
   * ```
   */
  static async digest(project: string, body: Uint8Array): Promise<string> {
    const slug = new TextEncoder().encode(project + "\n");
    const bytes = new Uint8Array(slug.byteLength + body.byteLength);
    bytes.set(slug);
    bytes.set(body, slug.byteLength);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    let hex = "";
    for (const b of digest) hex += b.toString(16).padStart(2, "0");
    return hex;
  }

  /** The remembered result for `digest`, if any. */
  get(digest: string): CheckedBody | undefined {
    return this.#memo.get(digest);
  }

  /** Remembers a body that passed every check. */
  set(digest: string, checked: CheckedBody): void {
    this.#memo.set(digest, checked);
  }

  /**
   * Runs `check` once for all concurrent callers with the same digest (a burst of identical
   * renders parses and validates once) and remembers its result when it succeeds.
   */
  async check(
    digest: string,
    check: () => Promise<FreshlyCheckedBody>,
  ): Promise<FreshlyCheckedBody> {
    return await this.#flight.run(digest, async () => {
      const fresh = await check();
      this.set(digest, fresh.checked);
      return fresh;
    }).promise;
  }

  /** How many bodies are remembered. */
  get size(): number {
    return this.#memo.size;
  }
}
