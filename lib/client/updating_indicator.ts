/**
 * When the view shows "Updating…" over the last scene: only once a render has been on its way for
 * `UPDATING_DELAY_MS`. Most renders answer well under it (an L1 hit in tens of milliseconds, a
 * cold one in about a hundred), and an indicator that appears and vanishes within a frame or two
 * is flicker, not feedback (responses under ~0.1 s read as instant; feedback matters past a few
 * hundred milliseconds). It also spared every slider step a DOM insertion, an animated spinner
 * and its removal — style, layout and paint between the answer and the frame that draws it
 * (docs/performance.md, slider to pixels). The first model's "Loading model…" is not delayed, and
 * `aria-busy` and the live region (`render_announcer.ts`) follow the render at once.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { type Clock, systemClock, type TimerHandle } from "./clock.ts";

/** How long a render runs before "Updating…" shows, in milliseconds. */
export const UPDATING_DELAY_MS = 250;

/**
 * Tells `onShow` when to show the indicator: `true` once `busy` has lasted `delayMs`, `false` as
 * soon as it ends (and never `true` for a render shorter than the delay).
 *
 * @example
 * ```ts
 * const indicator = new UpdatingIndicator((show) => setShowUpdating(show));
 * indicator.update(state.status === "rendering");
 * ```
 */
export class UpdatingIndicator {
  #timer: TimerHandle | undefined;
  #shown = false;

  /** `onShow` receives each change; `delayMs` defaults to `UPDATING_DELAY_MS`. */
  constructor(
    readonly onShow: (show: boolean) => void,
    readonly delayMs = UPDATING_DELAY_MS,
    readonly clock: Clock = systemClock,
  ) {}

  /** Whether the indicator is showing. */
  get shown(): boolean {
    return this.#shown;
  }

  /** Whether a render is on its way now. */
  update(busy: boolean): void {
    if (busy) {
      if (this.#shown || this.#timer !== undefined) return;
      this.#timer = this.clock.setTimeout(() => {
        this.#timer = undefined;
        this.#set(true);
      }, this.delayMs);
      return;
    }
    this.#cancel();
    this.#set(false);
  }

  /** Stops the pending timer (the view is going away). */
  dispose(): void {
    this.#cancel();
  }

  #cancel(): void {
    if (this.#timer === undefined) return;
    this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #set(show: boolean): void {
    if (show === this.#shown) return;
    this.#shown = show;
    this.onShow(show);
  }
}
