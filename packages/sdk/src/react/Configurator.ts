/**
 * The whole configurator for React: `ConfiguratorProvider` + `Viewer` + `ParameterForm` + a status
 * bar, the React counterpart of the `<cad-configurator>` element. The first render starts from the
 * schema's defaults merged with `initialValues`; every form change renders the new values.
 * A `<section>` named after the project (the partner's page gives it its landmarks); the theme's
 * colour pairs are checked once drawn (`enforceThemeContrast`), as in islands/Configurator.tsx.
 */
import {
  createElement as h,
  type CSSProperties,
  type ReactNode,
  useEffect,
  useRef,
  useState,
} from "react";
import type { RenderResult } from "../../../../lib/client/render_result.ts";
import type { SessionStatus } from "../../../../lib/client/session_client.ts";
import type { SceneView } from "../../../../lib/client/scene_view.ts";
import type { RenderError } from "../../../../lib/client/problem.ts";
import { ConfiguratorProvider, type ConfiguratorProviderProps } from "./ConfiguratorProvider.ts";
import { ParameterForm } from "./ParameterForm.ts";
import { useRender } from "./use_render.ts";
import { useSession } from "./use_session.ts";
import { Viewer } from "./Viewer.ts";
import { useConfiguratorStyles } from "./use_configurator_styles.ts";
import { enforceThemeContrast } from "../../../../lib/client/theme_contrast.ts";
import { sizeText } from "../../../../lib/client/model_description.ts";

/** What a configurator reports (the same events as `<cad-configurator>`, without the prefix). */
export type ConfiguratorEvent =
  | {
    type: "ready";
    project: string;
    version: number;
    values: Record<string, unknown>;
  }
  | { type: "change"; values: Record<string, unknown> }
  | { type: "rendered"; result: RenderResult }
  | { type: "status"; tokenStatus: SessionStatus }
  | { type: "error"; code: string; detail: string };

/** Props of the configurator: the provider's (spec 4.3) plus the UI's. */
export interface ConfiguratorProps extends Omit<ConfiguratorProviderProps, "children"> {
  /** Parameter values to start from (others take their defaults). */
  initialValues?: Record<string, unknown>;
  /** Hide the title bar (the partner's page has its own heading). */
  compact?: boolean;
  onEvent?: (event: ConfiguratorEvent) => void;
  /** Called with each three.js view created. */
  onView?: (view: SceneView) => void;
  className?: string;
  style?: CSSProperties;
}

/** The whole configurator. */
export function Configurator(props: ConfiguratorProps): ReactNode {
  const {
    initialValues: _v,
    compact: _c,
    onEvent: _e,
    onView: _w,
    className: _n,
    style: _s,
    ...provider
  } = props;
  return h(ConfiguratorProvider, provider, h(Shell, props));
}

function Shell(props: ConfiguratorProps): ReactNode {
  useConfiguratorStyles();
  const { tokenStatus } = useSession();
  const {
    status,
    result,
    error,
    budgetRemaining,
    render,
    project,
    projectError,
  } = useRender();
  const [values, setValues] = useState<Record<string, unknown>>({
    ...props.initialValues,
  });
  const valuesRef = useRef(values);
  const rootRef = useRef<HTMLElement>(null);
  const emit = useRef(props.onEvent);
  emit.current = props.onEvent;

  const apply = (next: Record<string, unknown>, announce: boolean) => {
    valuesRef.current = next;
    setValues(next);
    render(next);
    if (announce) emit.current?.({ type: "change", values: next });
  };

  // The first render once the project is here: the schema's defaults, then the given values.
  useEffect(() => {
    if (!project?.schema) return;
    const start: Record<string, unknown> = {};
    for (const p of project.schema.parameters) start[p.name] = p.default;
    const merged = { ...start, ...valuesRef.current };
    apply(merged, false);
    emit.current?.({
      type: "ready",
      project: project.slug,
      version: project.version,
      values: merged,
    });
  }, [project]);

  useEffect(() => {
    if (result) emit.current?.({ type: "rendered", result });
    // The partner's theme is read where it resolves (after layout); checked again per scene.
    if (rootRef.current) enforceThemeContrast(rootRef.current);
  }, [result]);
  useEffect(() => {
    emit.current?.({ type: "status", tokenStatus });
  }, [tokenStatus]);
  const shown = explain(error ?? projectError, tokenStatus);
  useEffect(() => {
    if (shown) {
      emit.current?.({ type: "error", code: shown.code, detail: shown.detail });
    }
  }, [shown?.code, shown?.detail]);

  const loading = !shown &&
    (status === "rendering" || (!result && status !== "error"));
  const pill = h(StatusPill, { status: tokenStatus, failed: shown !== null });
  const title = project?.title ?? props.projectKey;
  return h(
    "section",
    {
      ref: rootRef,
      "aria-label": title,
      className: `cad-configurator ${props.className ?? ""}`.trim(),
      style: props.style,
      "data-token-status": tokenStatus.state,
      "data-render-status": status,
      "data-dag-hash": result?.dagHash ?? "",
      "data-error-code": shown?.code ?? "",
    },
    props.compact ? null : h(
      "header",
      { className: "cad-bar" },
      h("h1", { className: "cad-title" }, title),
      pill,
    ),
    h(
      "div",
      { className: "cad-body" },
      h(
        "div",
        { className: "cad-stage" },
        h(Viewer, {
          result,
          loading,
          error: shown,
          title,
          onView: props.onView,
        }),
      ),
      h(
        "div",
        { className: "cad-panel" },
        project?.schema
          ? h(ParameterForm, {
            schema: project.schema,
            values,
            onChange: (name: string, v: unknown) =>
              apply({ ...valuesRef.current, [name]: v }, true),
            effective: result?.effective,
          })
          : h(
            "div",
            { className: "cad-panel__placeholder" },
            "Loading parameters…",
          ),
      ),
    ),
    h(
      "footer",
      { className: "cad-foot" },
      props.compact ? pill : null,
      h(
        "span",
        { className: "cad-foot__item", "data-budget": budgetRemaining ?? "" },
        typeof budgetRemaining === "number"
          ? `${budgetRemaining} renders left`
          : budgetRemaining === null
          ? "Unlimited renders"
          : "",
      ),
      result
        ? h(
          "span",
          { className: "cad-foot__item" },
          `${result.triangles.toLocaleString("en")} triangles · ${sizeText(result)}`,
        )
        : null,
    ),
  );
}

function StatusPill(
  props: { status: SessionStatus; failed: boolean },
): ReactNode {
  const state = props.failed ? "error" : props.status.state;
  const text = props.failed
    ? "Not available"
    : state === "ready"
    ? "Live"
    : state === "provided"
    ? "Live · partner session"
    : state === "loading"
    ? "Connecting…"
    : "Offline";
  return h(
    "span",
    {
      className: `cad-pill cad-pill--${state}`,
      "data-token-pill": props.status.state,
    },
    h("span", { className: "cad-pill__dot", "aria-hidden": true }),
    text,
  );
}

/** The error to show: a failed session, a failed render (not a superseded one), a failed load. */
function explain(
  error: RenderError | null,
  tokenStatus: SessionStatus,
): { code: string; detail: string } | null {
  if (tokenStatus.state === "error") {
    return {
      code: tokenStatus.code ?? "mint_failed",
      detail: tokenStatus.error,
    };
  }
  if (!error || error.code === "aborted") return null;
  return { code: error.code, detail: error.detail };
}
