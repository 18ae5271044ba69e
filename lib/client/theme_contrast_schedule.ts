/**
 * When a configurator checks its theme's contrast (`enforceThemeContrast`): once as it mounts,
 * where the partner's theme has resolved, then again after later scenes, in an idle moment and
 * once for a run of them. The check reads the theme's custom properties from the computed style,
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
 * contrast.scene(root); // at mount: checked now; later scenes: when idle
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

  /** A scene (or the mount) of `root`: checked now the first time, else once the page is idle. */
  scene(root: HTMLElement): void {
    if (!this.#checked) {
      this.#checked = true;
      this.check(root);
      return;
    }
    if (this.#cancel) return;
    this.#cancel = whenIdle(() => {
      this.#cancel = undefined;
      this.check(root);
    }, this.timeoutMs);
  }

  /** Drops a check still waiting (the configurator is going away). */
  dispose(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }
}
