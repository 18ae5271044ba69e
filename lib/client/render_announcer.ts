/**
 * The 3D view's one polite live region, without the spam: "Updating model…" once when renders
 * start (it stays while a slider is dragged: the same words are not announced again), and
 * "Model updated: 52 × 52 × 14 mm, 1 part" only when the renders settle — `settleMs` after the
 * last completed render with none on its way. Errors are not said here (they are role=alert).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { RenderResult } from "./render_result.ts";
import { renderedAnnouncement, renderingAnnouncement } from "./model_description.ts";

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

  /** `onText` receives each new text; `settleMs` is how long renders must rest before "updated". */
  constructor(readonly onText: (text: string) => void, readonly settleMs = 500) {}

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
      this.#set(renderingAnnouncement(!state.result));
      return;
    }
    const result = state.result;
    if (!result || result === this.#announced) return;
    this.#timer = setTimeout(() => {
      this.#announced = result;
      this.#set(renderedAnnouncement(result));
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
