/**
 * The three.js viewer island: draws a `RenderResult` (orbit controls, fit to view, lighting,
 * per-part colors, instancing, geometry shared by mesh hash and disposed when unused — see
 * `lib/client/scene_view.ts`), with loading and error overlays, and a quiet notice while the
 * browser restores a lost WebGL context.
 *
 * Accessible (WCAG 2.2 AA): the view is focusable (`tabindex=0`), an image named after the
 * project and described in words (`model_description.ts`: size, parts, triangles), operated by
 * keys (`view_keys.ts`, listed in a hint shown on focus) and by buttons (rotate, zoom, Fit: a
 * single-pointer alternative to dragging). One polite live region says "Updating model…" (once an
 * update has run `UPDATING_DELAY_MS`) and,
 * once renders settle, "Model updated: 52 × 52 × 14 mm, 1 part" (`render_announcer.ts`);
 * `aria-busy` is set while rendering; errors are role=alert. "Updating…" shows over the last scene
 * only once a render has run for `UPDATING_DELAY_MS` (`updating_indicator.ts`: no flicker on fast
 * answers).
 */
import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RenderError, RenderResult } from "../lib/client/mod.ts";
import type { SceneView } from "../lib/client/scene_view.ts";
import {
  mountSceneView,
  preloadSceneView,
  type SceneViewError,
} from "../lib/client/scene_view_loader.ts";
import { errorTitle } from "../lib/client/error_titles.ts";
import { describeModel } from "../lib/client/model_description.ts";
import { RenderAnnouncer } from "../lib/client/render_announcer.ts";
import { ORBIT_STEP, VIEW_KEYS_HINT } from "../lib/client/view_keys.ts";
import { UpdatingIndicator } from "../lib/client/updating_indicator.ts";
import { viewerDisplay } from "../lib/client/viewer_display.ts";

/** Props of the viewer. */
export interface ViewerProps {
  result?: RenderResult | null;
  /** Show the loading overlay (a render or the first token is on its way). */
  loading?: boolean;
  /** What the overlay says before the first scene (default "Loading model…"). */
  loadingText?: string;
  /** Show this error over the last good scene. */
  error?: { code: string; detail: string; title?: string } | RenderError | null;
  /** The model's name: the view's accessible name and its description start with it. */
  title?: string;
  /** Called once with the view (tests and benchmarks read `geometryCount`). */
  onView?: (view: SceneView) => void;
}

/** A three.js canvas that shows `result`. */
export default function Viewer(
  { result, loading, loadingText, error, title, onView }: ViewerProps,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<SceneView | null>(null);
  const [contextLost, setContextLost] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const announcer = useRef<RenderAnnouncer | null>(null);
  const [updating, setUpdating] = useState(false);
  const indicator = useRef<UpdatingIndicator | null>(null);
  const ids = useId();
  // three.js starts loading at the first render, the view is made in the effect below.
  useState(preloadSceneView);
  const [viewError, setViewError] = useState<SceneViewError | null>(null);
  const [viewReady, setViewReady] = useState(false);
  useEffect(() => {
    const stage = getComputedStyle(host.current!).getPropertyValue("--_cad-stage").trim();
    const unmount = mountSceneView(
      host.current!,
      { onContextChange: setContextLost, background: stage || undefined },
      (v) => {
        view.current = v;
        onView?.(v);
        if (shown.current) v.show(shown.current);
        setViewReady(true);
      },
      setViewError,
    );
    announcer.current = new RenderAnnouncer(setAnnouncement);
    indicator.current = new UpdatingIndicator(setUpdating);
    return () => {
      indicator.current?.dispose();
      unmount();
      announcer.current?.dispose();
      view.current = null;
    };
  }, []);
  // A new scene goes to the view as soon as it is committed, not after the next paint: it is then
  // drawn in the coming frame (one frame sooner).
  const shown = useRef<RenderResult | null>(null);
  useLayoutEffect(() => {
    shown.current = result ?? null;
    if (result && view.current) view.current.show(result);
  }, [result]);
  const name = title ?? "Model";
  const display = viewerDisplay({
    loading: !!loading,
    result: result ?? null,
    error: error ?? null,
    viewReady,
    viewError,
    updating,
  });
  const { announce } = display;
  useEffect(() => {
    announcer.current?.update(announce);
    indicator.current?.update(!!loading && !!result);
  }, [announce.loading, announce.result, announce.error, loading, result]);
  const shownError = display.error;
  return (
    <div
      class="cad-viewer"
      data-state={display.state}
      data-context={contextLost ? "lost" : "ok"}
    >
      <div
        class="cad-viewer__canvas"
        ref={host}
        tabIndex={0}
        role="img"
        aria-label={`3D view of ${name}`}
        aria-describedby={`${ids}-desc ${ids}-keys`}
        aria-busy={loading ? "true" : "false"}
        data-view=""
      />
      <p class="cad-viewer__hint" id={`${ids}-keys`} data-view-keys="">{VIEW_KEYS_HINT}</p>
      <p class="cad-visually-hidden" id={`${ids}-desc`} data-model-description="">
        {result ? describeModel(result, name) : ""}
      </p>
      <p class="cad-visually-hidden" aria-live="polite" data-render-announcement="">
        {announcement}
      </p>
      {contextLost && (
        <div class="cad-viewer__overlay cad-viewer__overlay--lost" role="status">
          <span class="cad-spinner" aria-hidden="true" />
          <span>Restoring the 3D view…</span>
        </div>
      )}
      {display.overlay && (
        <div
          class={`cad-viewer__overlay ${
            display.overlay.corner ? "cad-viewer__overlay--corner" : ""
          }`}
          aria-hidden="true"
        >
          <span class="cad-spinner" />
          <span>{display.overlay.loadingText ? loadingText ?? "Loading model…" : "Updating…"}</span>
        </div>
      )}
      {shownError && (
        <div class="cad-viewer__error" role="alert">
          <strong>
            {("title" in shownError && shownError.title) || errorTitle(shownError.code)}
          </strong>
          <span>{shownError.detail}</span>
        </div>
      )}
      {result && display.tools && (
        <div class="cad-viewer__tools" role="group" aria-label="View">
          <button
            type="button"
            data-icon=""
            aria-label="Rotate left"
            title="Rotate left (←)"
            onClick={() => view.current?.orbit(-ORBIT_STEP, 0)}
          >
            ↺
          </button>
          <button
            type="button"
            data-icon=""
            aria-label="Rotate right"
            title="Rotate right (→)"
            onClick={() => view.current?.orbit(ORBIT_STEP, 0)}
          >
            ↻
          </button>
          <button
            type="button"
            data-icon=""
            aria-label="Zoom in"
            title="Zoom in (+)"
            onClick={() => view.current?.handleKey("+")}
          >
            +
          </button>
          <button
            type="button"
            data-icon=""
            aria-label="Zoom out"
            title="Zoom out (−)"
            onClick={() => view.current?.handleKey("-")}
          >
            −
          </button>
          <button
            type="button"
            class="cad-viewer__fit"
            title="Fit to view (Home)"
            onClick={() => view.current?.fit(result)}
          >
            Fit
          </button>
        </div>
      )}
    </div>
  );
}
