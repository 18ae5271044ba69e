/**
 * When Preact runs `useEffect` callbacks: in a task of their own right after the commit, as React's
 * scheduler runs passive effects, instead of Preact's default of after the next animation frame.
 *
 * Preact's default asks the browser for that frame itself (`requestAnimationFrame`), so any
 * re-render with an effect to run made the page draw a frame, even when nothing on screen changed:
 * a slider step's "rendering" re-render (the live region's effect, for one) took the frame a page
 * that has been idle gets at once, and the new model, handed to the view a few milliseconds later,
 * then waited for the next one — 16.7 ms at 60 Hz (docs/performance.md, slider to pixels). With
 * effects in a task, frames are drawn only for what changed on screen. A task also runs in a
 * background tab, where animation frames do not.
 *
 * The islands framework's, browser side (the island pages call it at boot); the SDK's element
 * and `mount()` call it too. Runs in browsers: no Deno APIs here.
 */
import { options } from "preact";

/** Preact's hook for scheduling its effect flush (`preact/src/index.d.ts`, `Options`). */
type EffectFlushScheduler = (flush: () => void) => void;

/** Runs each effect flush in a new task, without asking for an animation frame. */
export const effectsInTasks: EffectFlushScheduler = (flush) => {
  globalThis.setTimeout(flush, 0);
};

/** Makes this page's Preact run `useEffect` callbacks in tasks (`effectsInTasks`); idempotent. */
export function runEffectsInTasks(): void {
  options.requestAnimationFrame = effectsInTasks;
}
