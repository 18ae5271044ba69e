/**
 * When a configurator checks its theme's contrast (`enforceThemeContrast`): once as it mounts, in
 * the task after the mount's (where the partner's theme has resolved, and usually before the first
 * frame), then again after later scenes, in an idle moment and once for a run of them. Not in the
 * mount's own effects: Preact runs a component's pending effects inside its next re-render, and
 * the check's forced style recalculation (25 ms on this machine's first one) then came between the
 * configurator's token and its project and delayed the first render's request (docs/performance.md,
 * twenty-sixth session). The check reads the theme's custom properties from the computed style,
 * which forces a style recalculation: run on every scene, it took 0.6 ms of each colour pick's
 * JavaScript in Chromium (the most of any function but `fetch`), between the answer and its frame
 * (docs/performance.md, twenty-fifth session).
 *
 * Runs in browsers: no Deno APIs here.
 */
import { enforceThemeContrast } from "./theme_contrast.ts";
import { whenIdle } from "./when_idle.ts";

/** The longest a later check waits for an idle moment, in milliseconds. */
export const CONTRAST_IDLE_TIMEOUT_MS = 1_000;

/**
 * Schedules the contrast checks of one configurator root.
 *
 * @example
 * ```ts
 * const contrast = new ThemeContrastSchedule();
 * contrast.scene(root); // at mount: checked in the next task; later scenes: when idle
 * contrast.dispose();
 * ```
 */
export class ThemeContrastSchedule {
  #checked = false;
  #cancel: (() => void) | undefined;

  /** `check` defaults to `enforceThemeContrast` (tests pass their own). */
  constructor(
    readonly check: (root: HTMLElement) => unknown = enforceThemeContrast,
    readonly timeoutMs = CONTRAST_IDLE_TIMEOUT_MS,
  ) {}

  /**
   * A scene (or the mount) of `root`: checked in the next task the first time, else once the page
   * is idle.
   */
  scene(root: HTMLElement): void {
    if (this.#cancel) return;
    const first = !this.#checked;
    this.#checked = true;
    const run = () => {
      this.#cancel = undefined;
      this.check(root);
    };
    if (first) {
      const id = setTimeout(run, 0);
      this.#cancel = () => clearTimeout(id);
    } else this.#cancel = whenIdle(run, this.timeoutMs);
  }

  /** Drops a check still waiting (the configurator is going away). */
  dispose(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }
}
