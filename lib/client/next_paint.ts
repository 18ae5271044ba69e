/**
 * Waiting for the browser to draw: what a page that changed its view itself waits for before it
 * starts work that can wait (lib/client/render_client.ts, `RenderOptions.sendAfter`).
 *
 * Runs in browsers: no Deno APIs here.
 */

/** The longest `afterNextPaint` waits: a hidden tab draws no frames. */
export const NEXT_PAINT_MAX_MS = 100;

/**
 * Resolves once the next frame has been drawn: in a task after that frame's animation frame
 * callbacks, style, layout and paint (a frame's rendering step runs them in one go). Resolves after
 * `maxMs` at the latest, and at once where there are no frames (no `requestAnimationFrame`).
 *
 * @example
 * ```ts
 * renderer.render(values, { sendAfter: afterNextPaint() });
 * ```
 */
export function afterNextPaint(maxMs = NEXT_PAINT_MAX_MS): Promise<void> {
  if (typeof requestAnimationFrame !== "function") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, maxMs);
    const frame = requestAnimationFrame(() => setTimeout(done, 0));
    function done() {
      clearTimeout(timer);
      cancelAnimationFrame(frame);
      resolve();
    }
  });
}
