/**
 * The 3D view's one polite live region, without the spam: "Loading model…" at once for the first
 * model; "Updating model…" only once an update has been on its way for `UPDATING_DELAY_MS`, as the
 * visual "Updating…" (`updating_indicator.ts`: most answers come well before, and words for a
 * wait nobody had are noise; it stays while a slider is dragged, the same words are not announced
 * again); and "Model updated: 52 × 52 × 14 mm, 1 part" only when the renders settle — `settleMs`
 * after the last completed render with none on its way (said again, after a moment of silence,
 * when a new model has the same words as the last). Errors are not said here (they are
 * role=alert). Nothing changes in the region when a render starts and answers fast, so such a
 * render's frame is the one that draws its model (docs/performance.md, slider to pixels).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { RenderResult } from "./render_result.ts";
import { renderedAnnouncement, renderingAnnouncement } from "./model_description.ts";
import { UPDATING_DELAY_MS } from "./updating_indicator.ts";

/** How long the region stays empty before words it held are said again, in ms. */
const REANNOUNCE_GAP_MS = 100;

/** What the announcer is told on every change of the view's state. */
export interface RenderAnnouncerState {
  loading: boolean;
  result: RenderResult | null | undefined;
  /** An error is shown (role=alert says it; the region is cleared). */
  error: boolean;
}

/**
 * Turns view states into live-region text (`onText`), debounced to the completed render.
 *
 * @example
 * ```ts
 * const a = new RenderAnnouncer((t) => (region.textContent = t));
 * a.update({ loading: true, result: null, error: false });
 * ```
 */
export class RenderAnnouncer {
  #text = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #announced: RenderResult | null = null;

  /**
   * `onText` receives each new text; `settleMs` is how long renders must rest before "updated",
   * `updatingDelayMs` how long an update must run before "Updating model…".
   */
  constructor(
    readonly onText: (text: string) => void,
    readonly settleMs = 500,
    readonly updatingDelayMs = UPDATING_DELAY_MS,
  ) {}

  /** The text the region holds now. */
  get text(): string {
    return this.#text;
  }

  /** Tells the announcer what the view shows now. */
  update(state: RenderAnnouncerState): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (state.error) {
      this.#set("");
      return;
    }
    if (state.loading) {
      const text = renderingAnnouncement(!state.result);
      if (!state.result) this.#set(text);
      else if (text !== this.#text) {
        this.#timer = setTimeout(() => this.#set(text), this.updatingDelayMs);
      }
      return;
    }
    const result = state.result;
    if (!result || result === this.#announced) return;
    this.#timer = setTimeout(() => {
      this.#announced = result;
      const text = renderedAnnouncement(result);
      if (text !== this.#text) return this.#set(text);
      // The words the region already holds (a fast update of the same size): cleared first, so
      // that they are said again.
      this.#set("");
      this.#timer = setTimeout(() => this.#set(text), REANNOUNCE_GAP_MS);
    }, this.settleMs);
  }

  /** Stops a pending announcement. */
  dispose(): void {
    clearTimeout(this.#timer);
  }

  #set(text: string): void {
    if (text === this.#text) return;
    this.#text = text;
    this.onText(text);
  }
}
