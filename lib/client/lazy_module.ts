/**
 * A module loaded on first use, once: three.js is most of the client's bytes, so the view
 * (`scene_view.ts`) and the snapshot's drawing (`snapshot_draw.ts`) load beside the configurator
 * instead of before it, and the form, the token and the project do not wait for them.
 *
 * Runs in browsers: no Deno APIs here.
 */

/**
 * A function that loads `load()`'s module on its first call and gives every later call the same
 * promise; a failed load (a network error) is forgotten, so the next call tries again.
 *
 * @example
 * ```ts
 * const loadView = lazyModule(() => import("./scene_view.ts"));
 * const { SceneView } = await loadView();
 * ```
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (!loading) {
      const attempt = load();
      loading = attempt;
      attempt.catch(() => {
        if (loading === attempt) loading = undefined;
      });
    }
    return loading;
  };
}
