/**
 * When the form shows values that the page set (`setParameters`, the embed bridge's
 * `cad:setParameters`): together with the model they render, or after `FORM_SYNC_DEADLINE_MS` if
 * that render has not answered by then.
 *
 * A shopper's own change shows in its field at once. A change made by the page has no field of its
 * own moving, and if the form showed it before the answer, the browser would draw a frame for the
 * form alone, so the new model, there a few milliseconds later, would wait for the next frame
 * (16.7 ms at 60 Hz). Held until the answer, the form's values and the model appear in the same
 * frame; past the deadline (about where a delay stops reading as instant) the form shows the
 * values without waiting longer for the model.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { type Clock, systemClock, type TimerHandle } from "./clock.ts";

/** How long the form waits for a page change's model before showing the values alone, in ms. */
export const FORM_SYNC_DEADLINE_MS = 100;

/**
 * Calls `onSync` when the form should take the current values.
 *
 * @example
 * ```ts
 * const sync = new PageChangeSync(() => setValues(valuesRef.current));
 * sync.withModel(renderer.render(values)); // a page change
 * sync.now(); // a change in the form itself
 * ```
 */
export class PageChangeSync {
  #deadline: TimerHandle | undefined;
  /** Bumped by `dispose`: answers of changes made before it are ignored. */
  #generation = 0;

  /** `onSync` sets the form's values; `deadlineMs` defaults to `FORM_SYNC_DEADLINE_MS`. */
  constructor(
    readonly onSync: () => void,
    readonly deadlineMs = FORM_SYNC_DEADLINE_MS,
    readonly clock: Clock = systemClock,
  ) {}

  /** Whether values are waiting for their model (the deadline runs). */
  get waiting(): boolean {
    return this.#deadline !== undefined;
  }

  /** A change the form must show now (the shopper's own, the first values). */
  now(): void {
    this.#sync();
  }

  /**
   * A page change whose render is `rendered`: synced when it settles, or at the deadline, which
   * runs from the first change not yet shown (changes in a row do not push it back).
   */
  withModel(rendered: Promise<unknown>): void {
    const generation = this.#generation;
    this.#deadline ??= this.clock.setTimeout(() => this.#sync(), this.deadlineMs);
    const settled = () => {
      if (generation === this.#generation) this.#sync();
    };
    rendered.then(settled, settled);
  }

  /**
   * Stops the deadline and ignores the answers of the changes made so far (the form is going
   * away). Later changes are synced again, so a trial unmount (React's StrictMode) leaves it usable.
   */
  dispose(): void {
    this.#generation++;
    this.#cancel();
  }

  #sync(): void {
    this.#cancel();
    this.onSync();
  }

  #cancel(): void {
    if (this.#deadline !== undefined) this.clock.clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }
}
