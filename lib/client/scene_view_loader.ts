/**
 * The three.js view (`scene_view.ts`), loaded on first use: a viewer starts loading it as it
 * mounts, so three.js downloads while the configurator fetches its token and project, and makes
 * the view once it is there. Both viewers (the Preact island, the npm package's React component)
 * mount it through `mountSceneView`.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { lazyModule } from "./lazy_module.ts";
import { whenIdle } from "./when_idle.ts";
import type { SceneView, SceneViewOptions } from "./scene_view.ts";

/** Loads `scene_view.ts` (and three.js) once; a failed load is tried again on the next call. */
export const loadSceneView: () => Promise<typeof import("./scene_view.ts")> = lazyModule(() =>
  import("./scene_view.ts")
);

/**
 * Starts loading the view where there is a page to draw on (not while rendering on a server), for
 * a viewer's first render: the view itself is made in an effect, which runs later. A failed load
 * is reported by `mountSceneView`, which tries again.
 */
export function preloadSceneView(): void {
  if (typeof document !== "undefined") loadSceneView().catch(() => {});
}

/** The longest a loaded view waits for an idle moment before it is made anyway. */
export const VIEW_IDLE_TIMEOUT_MS = 100;

/** Why a view could not be made: its code did not load, or the browser cannot draw WebGL. */
export interface SceneViewError {
  code: "view_unavailable";
  detail: string;
}

/**
 * Makes a `SceneView` in `container` once three.js has loaded and hands it to `onView`, or says
 * why not to `onError`; returns a function that disposes the view, or, called before the view
 * exists, keeps it from being made (a viewer unmounted while three.js was on its way).
 */
export function mountSceneView(
  container: HTMLElement,
  options: SceneViewOptions,
  onView: (view: SceneView) => void,
  onError: (error: SceneViewError) => void,
): () => void {
  let view: SceneView | undefined;
  let cancelled = false;
  let cancelIdle = () => {};
  const make = (module: typeof import("./scene_view.ts")) => {
    if (cancelled) return;
    try {
      view = new module.SceneView(container, options);
    } catch (err) {
      console.warn("The 3D view could not make its WebGL context:", err);
      onError({
        code: "view_unavailable",
        detail: "This browser could not start its 3D drawing (WebGL).",
      });
      return;
    }
    onView(view);
  };
  loadSceneView().then(
    // Making the view is one long task (the WebGL context, three.js's set-up): in an idle moment,
    // so the answers already in (the token, the project) send the render request first.
    (module) => (cancelIdle = whenIdle(() => make(module), VIEW_IDLE_TIMEOUT_MS)),
    (err) => {
      if (cancelled) return;
      console.warn("The 3D view's code could not be loaded:", err);
      onError({
        code: "view_unavailable",
        detail: "Its code could not be loaded. Check the connection and reload the page.",
      });
    },
  );
  return () => {
    cancelled = true;
    cancelIdle();
    view?.dispose();
  };
}
