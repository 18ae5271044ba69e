/**
 * What a viewer shows around its canvas, from what it knows: the render (`loading`, `result`,
 * `error`), its view (made once three.js has loaded, `scene_view_loader.ts`) and whether an update
 * has run long enough to say so (`updating_indicator.ts`). One definition for both viewers (the
 * Preact island and the npm package's React component).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { RenderAnnouncerState } from "./render_announcer.ts";
import type { RenderResult } from "./render_result.ts";

/** What a viewer knows. */
export interface ViewerInputs<E> {
  /** A render or the first token is on its way. */
  loading: boolean;
  result: RenderResult | null;
  /** The render's or the page's error. */
  error: E | null;
  /** The view exists (a scene handed to it is drawn in the next frame). */
  viewReady: boolean;
  /** The view could not be made. */
  viewError: E | null;
  /** An update has run for `UPDATING_DELAY_MS`. */
  updating: boolean;
}

/** What a viewer shows. */
export interface ViewerDisplay<E> {
  /** The viewer's `data-state`. */
  state: "error" | "loading" | "empty" | "ready";
  /** The error shown (role=alert): the render's, else the view's. */
  error: E | null;
  /** The overlay: centred "Loading model…" over an empty stage, or "Updating…" in a corner. */
  overlay: { corner: boolean; loadingText: boolean } | null;
  /** The view buttons (rotate, zoom, Fit) show: a scene is on screen. */
  tools: boolean;
  /** What the live region reports: the scene on screen, none while the view is on its way. */
  announce: RenderAnnouncerState;
}

/**
 * The viewer's display for `inputs`. A scene that came before the view (three.js still on its way)
 * is not on screen yet: the stage stays blank, "Loading model…" shows, and nothing is announced.
 *
 * @example
 * ```ts
 * viewerDisplay({ loading: false, result, error: null, viewReady: false, viewError: null,
 *   updating: false }).state; // "loading": the scene waits for the view
 * ```
 */
export function viewerDisplay<E>(inputs: ViewerInputs<E>): ViewerDisplay<E> {
  const { loading, result, error, viewReady, viewError, updating } = inputs;
  const empty = !result;
  const shown = error ?? viewError;
  const blank = empty || (!viewReady && !viewError);
  const waiting = loading || (blank && !empty);
  const overlaid = !viewError && (loading || (blank && !empty && !error)) && (blank || updating);
  return {
    state: shown ? "error" : waiting ? "loading" : empty ? "empty" : "ready",
    error: shown,
    overlay: overlaid ? { corner: !blank, loadingText: blank } : null,
    tools: !empty && viewReady,
    announce: { loading: waiting, result: blank ? null : result, error: !!shown },
  };
}
