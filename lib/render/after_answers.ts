/**
 * Redis work a render's answer need not wait for (the L2 write of a computed scene, the drop of a
 * lease an L2 hit did not need), run in a task after the current one. A command sent in the task
 * that produces answers is encoded, written and answered on this thread before the HTTP server
 * gets to send them: a cold render answered about 0.4 ms later with its L2 write in its own task,
 * an L2 hit about 0.05 ms later with its lease drop (docs/performance.md, eighteenth session).
 *
 * Work is kept by name until it has run: `now` runs one piece at once (a read of a key must leave
 * after the write of that key), `flush` runs all of it (shutdown).
 */
export class AfterAnswers {
  readonly #pending = new Map<string, () => void>();

  /**
   * Runs `work` in a task after this one, or earlier through `now(name)` or `flush()`; exactly
   * once either way.
   */
  later(name: string, work: () => void): void {
    const run = () => {
      clearTimeout(timer);
      if (this.#pending.get(name) === run) this.#pending.delete(name);
      work();
    };
    const timer = setTimeout(run, 0);
    this.#pending.set(name, run);
  }

  /** Runs the work waiting under `name`, if any, now. */
  now(name: string): void {
    this.#pending.get(name)?.();
  }

  /** Runs every piece of work still waiting, now. */
  flush(): void {
    for (const run of [...this.#pending.values()]) run();
  }

  /** How many pieces of work are waiting (tests). */
  get size(): number {
    return this.#pending.size;
  }
}
