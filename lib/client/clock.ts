/**
 * Time for the browser SDK: the current time and one-shot timers behind one small interface, so
 * that token refresh, retries and expiry callbacks can be driven by a manual clock in tests (and so
 * the SDK never reads `Date.now` or calls `setTimeout` directly).
 *
 * Runs in browsers: no Deno APIs here.
 */

/** An opaque handle of a scheduled timer. */
export type TimerHandle = unknown;

/** The current time and one-shot timers; every time is in milliseconds since the Unix epoch. */
export interface Clock {
  /** Milliseconds since the Unix epoch, as this machine believes. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer of `setTimeout`; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now` and the global timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
};

interface ManualTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to, firing due timers in time order: for tests and for
 * deterministic demos.
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.parse("2030-01-01T00:00:00Z"));
 * clock.setTimeout(() => console.log("fired"), 1000);
 * await clock.advance(1000); // logs "fired"
 * ```
 */
export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers: ManualTimer[] = [];

  /** Starts at `start` (ms since the epoch). */
  constructor(start = 0) {
    this.#now = start;
  }

  /** The clock's current time. */
  now(): number {
    return this.#now;
  }

  /** Schedules `fn` at `now() + ms`. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.push({ id, at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  /** Cancels a timer. */
  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** The due time of the earliest waiting timer, or undefined. */
  nextTimerAt(): number | undefined {
    let next: number | undefined;
    for (const timer of this.#timers) if (next === undefined || timer.at < next) next = timer.at;
    return next;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (in order, each at
   * its own time). Yields to pending promise jobs after each timer, so work a timer starts can
   * schedule follow-up timers that fire within the same advance.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#timers
        .filter((timer) => timer.at <= end)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#now = Math.max(this.#now, due.at);
      due.fn();
    }
    this.#now = end;
    await settle();
  }
}

/** Lets already-queued promise jobs run (a macrotask boundary). */
function settle(): Promise<void> {
  return new Promise((resolve) => globalThis.setTimeout(resolve, 0));
}
