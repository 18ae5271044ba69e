/**
 * The whole configurator for React: `ConfiguratorProvider` + `Viewer` + `ParameterForm` + a status
 * bar, the React counterpart of the `<cad-configurator>` element. The first render starts from the
 * schema's defaults merged with `initialValues`; every form change renders the new values.
 * A `<section>` named after the project (the partner's page gives it its landmarks); the theme's
 * colour pairs are checked once drawn and again after later scenes when the page is idle
 * (`ThemeContrastSchedule`), as in islands/Configurator.tsx.
 */
import {
  createElement as h,
  type CSSProperties,
  forwardRef,
  type ReactNode,
  type Ref,
  useEffect,
  useImperativeHandle,
  useMemo,
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
import { ThemeContrastSchedule } from "../../../../lib/client/theme_contrast_schedule.ts";
import { keptEffective } from "../../../../lib/client/effective_value_text.ts";
import { sizeText, trianglesText } from "../../../../lib/client/model_description.ts";
import {
  createShareUrl,
  restoreFromUrl,
  type ShareNote,
} from "../../../../lib/client/share_link.ts";
import {
  blobToDataUrl,
  renderSnapshot,
  settledResult,
  type SnapshotOptions,
} from "../../../../lib/client/snapshot.ts";
import { useConfigurator } from "./context.ts";
import { PageChangeSync } from "../../../../lib/client/page_change_sync.ts";
import { colorRoutes, previewColors } from "../../../../lib/client/color_preview.ts";
import { afterNextPaint } from "../../../../lib/client/next_paint.ts";
import { type ArMode, browserArMode } from "../../../../lib/client/ar_support.ts";
import { ArError, type ArLaunch, viewInAr } from "../../../../lib/client/ar_launch.ts";

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
  /** Where share links point (default: this page's URL). */
  shareBaseUrl?: string;
  /** Restore values from this page's `cad` share link on load (default true). */
  restoreShareLink?: boolean;
  /**
   * Android's Scene Viewer: an https URL of the GLB of `values` that needs no token
   * (docs/embedding.md, View in AR). Without it the kernel's AR ticket is used (one unit of
   * budget; the key must allow GLB for session tokens, else the button reports the refusal).
   */
  arModelUrl?: (values: Record<string, unknown>) => Promise<string>;
  className?: string;
  style?: CSSProperties;
}

/** What a `ref` on `Configurator` gives (the element's methods, for React). */
export interface ConfiguratorHandle {
  /** Sets parameter values (merged into the current ones) and renders. */
  setParameters(values: Record<string, unknown>): void;
  /** The current values. */
  getValues(): Record<string, unknown>;
  /** A link that reopens the current values; null until the project loaded. */
  getShareUrl(baseUrl?: string): string | null;
  /** A PNG of the current configuration (isometric, white, 512 × 512 unless `options` say). */
  snapshot(options?: SnapshotOptions): Promise<Blob>;
  /** The snapshot as a `data:image/png;base64,…` URL. */
  snapshotDataUrl(options?: SnapshotOptions): Promise<string>;
  /** Opens the current configuration in the device's AR viewer (rejects with `ArError`). */
  viewInAr(): Promise<ArLaunch>;
}

/** The whole configurator; a `ref` gets its `ConfiguratorHandle`. */
export const Configurator: (
  props: ConfiguratorProps & { ref?: Ref<ConfiguratorHandle> },
) => ReactNode = forwardRef<ConfiguratorHandle, ConfiguratorProps>(
  function Configurator(props, ref) {
    const {
      initialValues: _v,
      compact: _c,
      onEvent: _e,
      onView: _w,
      shareBaseUrl: _b,
      restoreShareLink: _r,
      arModelUrl: _a,
      className: _n,
      style: _s,
      ...provider
    } = props;
    return h(ConfiguratorProvider, provider, h(Shell, { ...props, handle: ref }));
  },
) as (props: ConfiguratorProps & { ref?: Ref<ConfiguratorHandle> }) => ReactNode;

function Shell(props: ConfiguratorProps & { handle: Ref<ConfiguratorHandle> }): ReactNode {
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
  const clients = useConfigurator();
  const [shareNotes, setShareNotes] = useState<ShareNote[]>([]);
  const [arMode, setArMode] = useState<ArMode | null>(null);
  const [arState, setArState] = useState<"idle" | "busy" | ArError["code"]>("idle");
  const arModelUrl = props.arModelUrl;
  // Scene Viewer fetches a GLB URL: the partner's, else a kernel AR ticket for the scene shown.
  const shownArMode = arMode;
  const openAr = async (): Promise<ArLaunch> => {
    setArState("busy");
    try {
      if (!clients) throw new ArError("no_scene", "the configurator is not mounted yet");
      const launch = await viewInAr({
        mode: shownArMode,
        scene: () => settledResult(clients.renderer.state),
        glbUrl: arModelUrl
          ? () => arModelUrl({ ...valuesRef.current })
          : async () => (await clients.renderer.arTicket()).url,
        title: project?.title,
        container: rootRef.current ?? undefined,
      });
      setArState("idle");
      return launch;
    } catch (err) {
      setArState(err instanceof ArError ? err.code : "ar_unavailable");
      throw err;
    }
  };
  const openArRef = useRef(openAr);
  openArRef.current = openAr;
  // In an effect, not at the first render: the server renders no AR button, and hydration must
  // match it.
  useEffect(() => setArMode(browserArMode()), []);
  useImperativeHandle(props.handle, () => ({
    setParameters: (v) => apply({ ...valuesRef.current, ...v }, true, "page"),
    getValues: () => ({ ...valuesRef.current }),
    getShareUrl: (baseUrl) =>
      project
        ? createShareUrl(
          project,
          valuesRef.current,
          baseUrl ?? props.shareBaseUrl ?? globalThis.location.href,
        )
        : null,
    snapshot: async (options) => {
      if (!clients) throw new Error("the configurator is not mounted yet");
      return await renderSnapshot(await settledResult(clients.renderer.state), options);
    },
    snapshotDataUrl: async (options) => {
      if (!clients) throw new Error("the configurator is not mounted yet");
      return await blobToDataUrl(
        await renderSnapshot(await settledResult(clients.renderer.state), options),
      );
    },
    viewInAr: () => openArRef.current(),
  }), [project, clients, props.shareBaseUrl]);

  // The form takes a page change's values with their model (lib/client/page_change_sync.ts).
  const [formSync] = useState(() => new PageChangeSync(() => setValues(valuesRef.current)));
  useEffect(() => () => formSync.dispose(), [formSync]);
  // A color-only change is shown at once on the scene on screen (lib/client/color_preview.ts); the
  // render's answer replaces the preview, and an error takes it back.
  const routes = useMemo(
    () =>
      project?.template && project.schema ? colorRoutes(project.template, project.schema) : null,
    [project],
  );
  const [colorTarget, setColorTarget] = useState<Record<string, unknown> | null>(null);
  const resultRef = useRef(result);
  resultRef.current = result;
  // Renders `next`. The form shows values from the form itself (and the first ones) at once, and
  // values the page set with their model.
  const apply = (next: Record<string, unknown>, announce: boolean, from: "form" | "page") => {
    valuesRef.current = next;
    const shownResult = resultRef.current;
    const previewed = !!(routes && shownResult && previewColors(shownResult, next, routes));
    // A previewed change is on screen in the next frame: its request leaves after that frame.
    const rendered = render(next, previewed ? { sendAfter: afterNextPaint() } : undefined);
    setColorTarget(previewed ? next : null);
    // A previewed page change's model is on screen at once: the form shows its values with it.
    if (from === "form" || previewed) formSync.now();
    else formSync.withModel(rendered);
    if (announce) emit.current?.({ type: "change", values: next });
  };
  // A stable handler, so the form's fields re-render only when what they show changed.
  const applyRef = useRef(apply);
  applyRef.current = apply;
  const onFieldChange = useMemo(
    () => (name: string, v: unknown) =>
      applyRef.current({ ...valuesRef.current, [name]: v }, true, "form"),
    [],
  );
  // Every answer carries a new `effective` object (usually empty): keep the one the form has
  // while it says the same, so that an answer does not re-render the form's fields.
  const effectiveRef = useRef(result?.effective);
  const effective = effectiveRef.current = keptEffective(effectiveRef.current, result?.effective);

  // The first render once the project is here: the schema's defaults, then the given values.
  useEffect(() => {
    if (!project?.schema) return;
    const start: Record<string, unknown> = {};
    for (const p of project.schema.parameters) start[p.name] = p.default;
    // A share link in this page's URL wins over `initialValues` (it is the shopper's).
    const restored = props.restoreShareLink === false
      ? null
      : restoreFromUrl(globalThis.location.href, project);
    const merged = { ...start, ...valuesRef.current, ...restored?.values };
    if (restored) setShareNotes(restored.notes);
    apply(merged, false, "form");
    emit.current?.({
      type: "ready",
      project: project.slug,
      version: project.version,
      values: merged,
    });
  }, [project]);

  // The partner's theme is read where it resolves (after layout); checked again after scenes,
  // when the page is idle (lib/client/theme_contrast_schedule.ts).
  const [contrast] = useState(() => new ThemeContrastSchedule());
  useEffect(() => () => contrast.dispose(), []);
  useEffect(() => {
    if (result) emit.current?.({ type: "rendered", result });
    if (rootRef.current) contrast.scene(rootRef.current);
  }, [result]);
  useEffect(() => {
    emit.current?.({ type: "status", tokenStatus });
  }, [tokenStatus]);
  const shown = explain(error ?? projectError, tokenStatus);
  const preview = useMemo(
    () =>
      colorTarget && routes && result && !shown ? previewColors(result, colorTarget, routes) : null,
    [colorTarget, routes, result, !shown],
  );
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
          result: preview ?? result,
          loading,
          error: shown,
          title,
          onView: props.onView,
        }),
        shownArMode && result && !shown
          ? h(
            "div",
            { className: "cad-viewer__tools cad-ar", "data-ar-mode": shownArMode },
            h(
              "button",
              {
                type: "button",
                className: "cad-ar__button",
                "aria-busy": arState === "busy" ? true : undefined,
                "data-ar-state": arState,
                onClick: () => openArRef.current().catch(() => {}),
              },
              arState === "busy"
                ? "Preparing AR…"
                : arState === "idle"
                ? "View in AR"
                : "AR not available",
            ),
          )
          : null,
      ),
      h(
        "div",
        { className: "cad-panel" },
        shareNotes.length > 0
          ? h(ShareNotes, { notes: shareNotes, onDismiss: () => setShareNotes([]) })
          : null,
        project?.schema
          ? h(ParameterForm, {
            schema: project.schema,
            values,
            onChange: onFieldChange,
            effective,
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
          `${trianglesText(result)} · ${sizeText(result)}`,
        )
        : null,
    ),
  );
}

/** What did not come back from a share link, shown once above the form (never in the console). */
function ShareNotes(props: { notes: ShareNote[]; onDismiss: () => void }): ReactNode {
  return h(
    "div",
    {
      className: "cad-share-note",
      role: "status",
      "data-share-notes": props.notes.map((n) => n.reason).join(" "),
    },
    h(
      "div",
      { className: "cad-share-note__text" },
      h(
        "strong",
        null,
        props.notes.every((n) => n.reason === "other_version")
          ? "Restored from a shared link."
          : "Not everything in this link could be restored.",
      ),
      h("ul", null, ...props.notes.map((n, i) => h("li", { key: i }, n.message))),
    ),
    h("button", { type: "button", "aria-label": "Dismiss", onClick: props.onDismiss }, "×"),
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
