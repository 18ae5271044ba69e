/**
 * The viewer for React: a `SceneView` (lib/client/scene_view.ts: three.js, orbit controls, fit to
 * view, geometry shared by mesh hash, keyboard) created in an effect and disposed in its cleanup,
 * with the loading and error overlays of the configurator's stylesheet. Accessible as the Preact
 * island is (islands/Viewer.tsx): a focusable image named after the model and described in words
 * (model_description.ts), the keys listed in a hint shown on focus (view_keys.ts), rotate/zoom/Fit
 * buttons, one polite live region debounced to the completed render (render_announcer.ts),
 * `aria-busy` while rendering, errors as role=alert, "Updating…" only once a render has run for
 * `UPDATING_DELAY_MS` (updating_indicator.ts). The view, and three.js with it, loads as the viewer
 * mounts (scene_view_loader.ts): a bundler splits it into a chunk of its own, and the overlay shows
 * until the view has drawn.
 */
import { createElement as h, type ReactNode, useEffect, useId, useRef, useState } from "react";
import type { RenderError } from "../../../../lib/client/problem.ts";
import type { RenderResult } from "../../../../lib/client/render_result.ts";
import type { SceneView } from "../../../../lib/client/scene_view.ts";
import {
  mountSceneView,
  preloadSceneView,
  type SceneViewError,
} from "../../../../lib/client/scene_view_loader.ts";
import { errorTitle } from "../../../../lib/client/error_titles.ts";
import { describeModel } from "../../../../lib/client/model_description.ts";
import { RenderAnnouncer } from "../../../../lib/client/render_announcer.ts";
import { ORBIT_STEP, VIEW_KEYS_HINT } from "../../../../lib/client/view_keys.ts";
import { UpdatingIndicator } from "../../../../lib/client/updating_indicator.ts";
import { viewerDisplay } from "../../../../lib/client/viewer_display.ts";
import { useConfiguratorStyles } from "./use_configurator_styles.ts";

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
  /** Called with each view created (tests and benchmarks read `geometryCount`). */
  onView?: (view: SceneView) => void;
  className?: string;
}

/** A three.js canvas that shows `result`. */
export function Viewer(props: ViewerProps): ReactNode {
  useConfiguratorStyles();
  const { result, loading, loadingText, error } = props;
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<SceneView | null>(null);
  const onView = useRef(props.onView);
  onView.current = props.onView;
  const [announcement, setAnnouncement] = useState("");
  const announcer = useRef<RenderAnnouncer | null>(null);
  const [updating, setUpdating] = useState(false);
  const indicator = useRef<UpdatingIndicator | null>(null);
  const ids = useId();
  // three.js starts loading at the first render, the view is made in the effect below.
  useState(preloadSceneView);
  const [viewError, setViewError] = useState<SceneViewError | null>(null);
  const [viewReady, setViewReady] = useState(false);
  const shown = useRef<RenderResult | null>(null);
  useEffect(() => {
    const stage = getComputedStyle(host.current!).getPropertyValue(
      "--_cad-stage",
    ).trim();
    let made: SceneView | null = null;
    const unmount = mountSceneView(
      host.current!,
      { background: stage || undefined },
      (v) => {
        made = v;
        view.current = v;
        onView.current?.(v);
        if (shown.current) v.show(shown.current);
        setViewReady(true);
      },
      setViewError,
    );
    const a = new RenderAnnouncer(setAnnouncement);
    announcer.current = a;
    const u = new UpdatingIndicator(setUpdating);
    indicator.current = u;
    return () => {
      u.dispose();
      unmount();
      a.dispose();
      if (made && view.current === made) view.current = null;
      setViewReady(false);
    };
  }, []);
  useEffect(() => {
    shown.current = result ?? null;
    if (result && view.current) view.current.show(result);
  }, [result]);
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
  const name = props.title ?? "Model";
  const tool = (label: string, title: string, glyph: string, run: () => void) =>
    h("button", {
      type: "button",
      "data-icon": "",
      "aria-label": label,
      title,
      onClick: run,
    }, glyph);
  return h(
    "div",
    {
      className: `cad-viewer ${props.className ?? ""}`.trim(),
      "data-state": display.state,
    },
    h("div", {
      className: "cad-viewer__canvas",
      ref: host,
      tabIndex: 0,
      role: "img",
      "aria-label": `3D view of ${name}`,
      "aria-describedby": `${ids}-desc ${ids}-keys`,
      "aria-busy": loading ? "true" : "false",
      "data-view": "",
    }),
    h("p", {
      className: "cad-viewer__hint",
      id: `${ids}-keys`,
      "data-view-keys": "",
    }, VIEW_KEYS_HINT),
    h(
      "p",
      {
        className: "cad-visually-hidden",
        id: `${ids}-desc`,
        "data-model-description": "",
      },
      result ? describeModel(result, name) : "",
    ),
    h(
      "p",
      {
        className: "cad-visually-hidden",
        "aria-live": "polite",
        "data-render-announcement": "",
      },
      announcement,
    ),
    display.overlay && h(
      "div",
      {
        className: `cad-viewer__overlay ${
          display.overlay.corner ? "cad-viewer__overlay--corner" : ""
        }`,
        "aria-hidden": true,
      },
      h("span", { className: "cad-spinner" }),
      h(
        "span",
        null,
        display.overlay.loadingText ? loadingText ?? "Loading model…" : "Updating…",
      ),
    ),
    shownError && h(
      "div",
      { className: "cad-viewer__error", role: "alert" },
      h(
        "strong",
        null,
        ("title" in shownError && shownError.title) || errorTitle(shownError.code),
      ),
      h("span", null, shownError.detail),
    ),
    result && display.tools && h(
      "div",
      { className: "cad-viewer__tools", role: "group", "aria-label": "View" },
      tool(
        "Rotate left",
        "Rotate left (←)",
        "↺",
        () => view.current?.orbit(-ORBIT_STEP, 0),
      ),
      tool(
        "Rotate right",
        "Rotate right (→)",
        "↻",
        () => view.current?.orbit(ORBIT_STEP, 0),
      ),
      tool("Zoom in", "Zoom in (+)", "+", () => view.current?.handleKey("+")),
      tool("Zoom out", "Zoom out (−)", "−", () => view.current?.handleKey("-")),
      h("button", {
        type: "button",
        className: "cad-viewer__fit",
        title: "Fit to view (Home)",
        onClick: () => view.current?.fit(result),
      }, "Fit"),
    ),
  );
}
