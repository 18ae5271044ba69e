/**
 * A Hono router that remembers its recent matches. The app's route table is one Hono's
 * RegExpRouter refuses (`/settings/keys/new` beside `/settings/keys/:keyId/revoke`), so Hono falls
 * back to its trie router, which splits and walks every path anew: ~4 µs of every request's CPU,
 * spent again and again on the same few paths (the mint and render endpoints take nearly every
 * request). Matching is a pure function of method and path, so a bounded map of recent matches
 * answers a repeated request with one lookup. Hono treats a match as read-only (its RegExpRouter
 * shares one result between the requests to a static path as well).
 */
import { LRUCache } from "lru-cache";
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

/** Paths longer than this are matched but not remembered (a scan must not fill memory). */
export const MEMO_MAX_PATH = 256;

/**
 * Hono's default router (RegExpRouter, else TrieRouter) with `capacity` matches remembered; the
 * least recently used is forgotten first.
 *
 * @example
 * ```ts
 * const app = new Hono({ router: new MemoRouter() });
 * ```
 */
export class MemoRouter<T> implements Router<T> {
  name = "MemoRouter";
  readonly #inner: Router<T>;
  readonly #memo: LRUCache<string, Result<T>>;

  constructor(capacity = 512, inner?: Router<T>) {
    this.#memo = new LRUCache({ max: capacity });
    this.#inner = inner ?? new SmartRouter({ routers: [new RegExpRouter(), new TrieRouter()] });
  }

  add(method: string, path: string, handler: T): void {
    this.#memo.clear();
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MEMO_MAX_PATH) return this.#inner.match(method, path);
    const key = method + " " + path;
    let result = this.#memo.get(key);
    if (result === undefined) {
      result = this.#inner.match(method, path);
      this.#memo.set(key, result);
    }
    return result;
  }

  /** How many matches are remembered (for tests). */
  get size(): number {
    return this.#memo.size;
  }
}
