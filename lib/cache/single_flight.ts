/** Coalesces concurrent calls for the same key into one execution (Go's singleflight). */

/** Runs at most one `fn` per key at a time; callers that arrive meanwhile share its result. */
export class SingleFlight<T> {
  readonly #inFlight = new Map<string, Promise<T>>();

  /**
   * The result of `fn` for `key`, shared with every concurrent caller of the same key.
   *
   * @example
   * ```ts
   * const flight = new SingleFlight<Scene>();
   * const [a, b] = await Promise.all([flight.run(k, render), flight.run(k, render)]); // one render
   * ```
   */
  run(key: string, fn: () => Promise<T>): { promise: Promise<T>; shared: boolean } {
    const existing = this.#inFlight.get(key);
    if (existing) return { promise: existing, shared: true };
    const promise = (async () => {
      try {
        return await fn();
      } finally {
        this.#inFlight.delete(key);
      }
    })();
    this.#inFlight.set(key, promise);
    return { promise, shared: false };
  }

  /** Whether `key` is being computed now. */
  has(key: string): boolean {
    return this.#inFlight.has(key);
  }

  /** How many keys are being computed now. */
  get size(): number {
    return this.#inFlight.size;
  }
}
