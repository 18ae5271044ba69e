/**
 * The viewer for React: a `SceneView` (lib/client/scene_view.ts: three.js, orbit controls, fit to
 * view, geometry shared by mesh hash) created in an effect and disposed in its cleanup, with the
 * loading and error overlays of the configurator's stylesheet.
 */
import { createElement as h, type ReactNode, useEffect, useRef } from "react";
import type { RenderError } from "../../../../lib/client/problem.ts";
import type { RenderResult } from "../../../../lib/client/render_result.ts";
import { SceneView } from "../../../../lib/client/scene_view.ts";
import { errorTitle } from "../../../../lib/client/error_titles.ts";
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
  useEffect(() => {
    const v = new SceneView(host.current!);
    view.current = v;
    onView.current?.(v);
    return () => {
      v.dispose();
      if (view.current === v) view.current = null;
    };
  }, []);
  useEffect(() => {
    if (result && view.current) view.current.show(result);
  }, [result]);
  const empty = !result;
  const state = error ? "error" : loading ? "loading" : empty ? "empty" : "ready";
  return h(
    "div",
    { className: `cad-viewer ${props.className ?? ""}`.trim(), "data-state": state },
    h("div", { className: "cad-viewer__canvas", ref: host }),
    loading && h(
      "div",
      { className: `cad-viewer__overlay ${empty ? "" : "cad-viewer__overlay--corner"}` },
      h("span", { className: "cad-spinner", "aria-hidden": true }),
      h("span", null, empty ? loadingText ?? "Loading model…" : "Updating…"),
    ),
    error && h(
      "div",
      { className: "cad-viewer__error", role: "alert" },
      h("strong", null, ("title" in error && error.title) || errorTitle(error.code)),
      h("span", null, error.detail),
    ),
    result && h("button", {
      type: "button",
      className: "cad-viewer__fit",
      title: "Fit to view",
      onClick: () => view.current?.fit(result),
    }, "Fit"),
  );
}
