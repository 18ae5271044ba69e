/**
 * The 3D view's keyboard: which key does what (arrows orbit, + / − and PageUp / PageDown zoom,
 * Home resets to the fitted view) and the hint that lists them (shown when the view has focus,
 * tied to it with aria-describedby). `SceneView` runs the actions.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** What a key does to the camera. */
export type ViewAction =
  | { type: "orbit"; azimuth: number; polar: number }
  | { type: "zoom"; factor: number }
  | { type: "reset" };

/** One orbit step (15°) and one zoom step (×0.8 in, ×1.25 out). */
export const ORBIT_STEP = Math.PI / 12;
const ZOOM_IN = 0.8;

/** The action of `key` (a `KeyboardEvent.key`), or null when the view leaves the key alone. */
export function viewKeyAction(key: string): ViewAction | null {
  switch (key) {
    case "ArrowLeft":
      return { type: "orbit", azimuth: -ORBIT_STEP, polar: 0 };
    case "ArrowRight":
      return { type: "orbit", azimuth: ORBIT_STEP, polar: 0 };
    case "ArrowUp":
      return { type: "orbit", azimuth: 0, polar: -ORBIT_STEP };
    case "ArrowDown":
      return { type: "orbit", azimuth: 0, polar: ORBIT_STEP };
    case "+":
    case "=":
    case "PageUp":
      return { type: "zoom", factor: ZOOM_IN };
    case "-":
    case "_":
    case "PageDown":
      return { type: "zoom", factor: 1 / ZOOM_IN };
    case "Home":
      return { type: "reset" };
    default:
      return null;
  }
}

/** The hint a focused view shows and is described by. */
export const VIEW_KEYS_HINT = "Arrow keys rotate, + and − or Page Up and Page Down zoom, " +
  "Home resets the view.";
