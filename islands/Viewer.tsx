/**
 * The three.js viewer island: draws a `RenderResult` (orbit controls, fit to view, lighting,
 * per-part colors, instancing, geometry shared by mesh hash and disposed when unused — see
 * `lib/client/scene_view.ts`), with loading and error overlays, and a quiet notice while the
 * browser restores a lost WebGL context.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { RenderError, RenderResult } from "../lib/client/mod.ts";
import { SceneView } from "../lib/client/scene_view.ts";
import { errorTitle } from "../lib/client/error_titles.ts";

/** Props of the viewer. */
export interface ViewerProps {
  result?: RenderResult | null;
  /** Show the loading overlay (a render or the first token is on its way). */
  loading?: boolean;
  /** What the overlay says before the first scene (default "Loading model…"). */
  loadingText?: string;
  /** Show this error over the last good scene. */
  error?: { code: string; detail: string; title?: string } | RenderError | null;
  /** Called once with the view (tests and benchmarks read `geometryCount`). */
  onView?: (view: SceneView) => void;
}

/** A three.js canvas that shows `result`. */
export default function Viewer({ result, loading, loadingText, error, onView }: ViewerProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<SceneView | null>(null);
  const [contextLost, setContextLost] = useState(false);
  useEffect(() => {
    const v = new SceneView(host.current!, { onContextChange: setContextLost });
    view.current = v;
    onView?.(v);
    return () => {
      v.dispose();
      view.current = null;
    };
  }, []);
  useEffect(() => {
    if (result && view.current) view.current.show(result);
  }, [result]);
  const empty = !result;
  return (
    <div
      class="cad-viewer"
      data-state={error ? "error" : loading ? "loading" : empty ? "empty" : "ready"}
      data-context={contextLost ? "lost" : "ok"}
    >
      <div class="cad-viewer__canvas" ref={host} />
      {contextLost && (
        <div class="cad-viewer__overlay cad-viewer__overlay--lost" role="status">
          <span class="cad-spinner" aria-hidden="true" />
          <span>Restoring the 3D view…</span>
        </div>
      )}
      {loading && (
        <div class={`cad-viewer__overlay ${empty ? "" : "cad-viewer__overlay--corner"}`}>
          <span class="cad-spinner" aria-hidden="true" />
          <span>{empty ? loadingText ?? "Loading model…" : "Updating…"}</span>
        </div>
      )}
      {error && (
        <div class="cad-viewer__error" role="alert">
          <strong>{("title" in error && error.title) || errorTitle(error.code)}</strong>
          <span>{error.detail}</span>
        </div>
      )}
      {result && (
        <button
          type="button"
          class="cad-viewer__fit"
          title="Fit to view"
          onClick={() => view.current?.fit(result)}
        >
          Fit
        </button>
      )}
    </div>
  );
}
