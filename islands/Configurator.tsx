/**
 * The configurator: provider + viewer + parameter form + status bar, used three ways:
 * - the hosted page `/configurator/<project>?key=…` (an island; `hosted` set: tokens from the hub's
 *   configurator endpoint, postMessage API to the one allowed parent, see docs/embedding.md),
 * - the `<cad-configurator>` custom element (`lib/sdk/embed_element.ts`),
 * - partners' own Preact/React apps (`/sdk/v1/preact.js`).
 *
 * Landmarks: on the hosted page the configurator is the page's `<main>`; elsewhere (the element,
 * a partner's app) a `<section>` named after the project inside the partner's own landmarks. The
 * theme's colour pairs are checked once drawn, and again after later scenes when the page is idle
 * (`enforceThemeContrast`, `ThemeContrastSchedule`: a failing partner colour falls back, with a
 * console warning).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import ConfiguratorProvider, {
  type ConfiguratorProviderProps,
  useConfigurator,
  useRender,
  useSession,
} from "./ConfiguratorProvider.tsx";
import Viewer from "./Viewer.tsx";
import ParameterForm from "./ParameterForm.tsx";
import type { LoadedProject, RenderError, RenderResult, SessionStatus } from "../lib/client/mod.ts";
import type { SceneView } from "../lib/client/scene_view.ts";
import { readTokenOrigin } from "../lib/client/token_payload.ts";
import {
  requestConfiguration,
  type SignedConfiguration,
} from "../lib/client/configuration_request.ts";
import { EmbedBridge, resolveParentOrigin } from "../lib/client/embed_bridge.ts";
import type { ParameterSchema } from "../lib/dag/parameter_schema.ts";
import { ThemeContrastSchedule } from "../lib/client/theme_contrast_schedule.ts";
import { keptEffective } from "../lib/client/effective_value_text.ts";
import { createShareUrl, restoreFromUrl, type ShareNote } from "../lib/client/share_link.ts";
import { PageChangeSync } from "../lib/client/page_change_sync.ts";
import { colorRoutes, previewColors } from "../lib/client/color_preview.ts";
import { afterNextPaint } from "../lib/client/next_paint.ts";
import {
  renderSnapshot,
  settledResult,
  SNAPSHOT_DEFAULTS,
  SnapshotError,
  type SnapshotOptions,
} from "../lib/client/snapshot.ts";
import { sizeText, trianglesText } from "../lib/client/model_description.ts";
import { type ArMode, browserArMode } from "../lib/client/ar_support.ts";
import { ArError, type ArLaunch, viewInAr } from "../lib/client/ar_launch.ts";

/** Events a configurator reports (the custom element re-dispatches them as DOM events). */
export type ConfiguratorEvent =
  | { type: "ready"; project: string; version: number; values: Record<string, unknown> }
  | { type: "change"; values: Record<string, unknown> }
  | { type: "rendered"; result: RenderResult }
  | { type: "status"; tokenStatus: SessionStatus }
  | { type: "tokenexpired"; token: string }
  | { type: "error"; code: string; detail: string };

/** Imperative handle (custom element methods, postMessage requests). */
export interface ConfiguratorController {
  setParameters(values: Record<string, unknown>): void;
  getValues(): Record<string, unknown>;
  getConfiguration(): Promise<SignedConfiguration>;
  refreshSessionToken(): Promise<string>;
  setSessionToken(token: string): void;
  view(): SceneView | null;
  /** A link that reopens the current values (`baseUrl` default: `shareBaseUrl`, else this page). */
  getShareUrl(baseUrl?: string): string;
  /** A PNG of the current configuration from the documented camera (lib/client/snapshot.ts). */
  snapshot(options?: SnapshotOptions): Promise<Blob>;
  /** Opens the current configuration in the device's AR viewer (lib/client/ar_launch.ts). */
  viewInAr(): Promise<ArLaunch>;
}

/** Props of the configurator (JSON-only when used as an island). */
export interface ConfiguratorProps {
  keyId?: string;
  sessionToken?: string;
  projectKey: string;
  hubBaseUrl?: string;
  baseUrl?: string;
  /** Parameter values to start from (others take their defaults). */
  initialValues?: Record<string, unknown>;
  /** Hosted page only: the key's allowed origins (candidates for the parent). */
  hosted?: { allowedOrigins: string[] };
  /** Hide the title bar (a partner page has its own heading). */
  compact?: boolean;
  /** Where share links point (default: this page's URL; the hosted page: its parent's). */
  shareBaseUrl?: string;
  /** Restore values from this page's `cad` share link on load (default true). */
  restoreShareLink?: boolean;
  /**
   * Android's Scene Viewer: an https URL of the GLB of `values` that needs no token
   * (docs/embedding.md, View in AR). Without it the kernel's AR ticket is used (one unit of
   * budget; the key must allow GLB for session tokens, else the button reports the refusal).
   */
  arModelUrl?: (values: Record<string, unknown>) => Promise<string>;
  /** Server rendering: the project's title and schema, so the first paint shows the form. */
  title?: string;
  schema?: ParameterSchema;
  onEvent?: (event: ConfiguratorEvent) => void;
  /** Receives the imperative handle once mounted. */
  controller?: (controller: ConfiguratorController) => void;
  /** The `fetch` the clients send with (default the global one). */
  fetch?: typeof fetch;
}

/** The whole configurator. Renders a static frame on the server; the live one in the browser. */
export default function Configurator(props: ConfiguratorProps) {
  const inBrowser = typeof document !== "undefined";
  const parentOrigin = useMemo(
    () =>
      inBrowser && props.hosted
        ? resolveParentOrigin(globalThis as unknown as Window, props.hosted.allowedOrigins)
        : null,
    [],
  );
  if (!inBrowser) {
    return (
      <Frame
        title={props.title ?? props.projectKey}
        compact={props.compact}
        hosted={!!props.hosted}
        schema={props.schema}
        values={props.initialValues}
      />
    );
  }
  // Opened top-level: the ordinary browser flow, if the key's owner listed the hub's own origin
  // (the demo key does); the page's Origin header proves it to the mint endpoint as anywhere.
  const selfAllowed = inBrowser && !!props.hosted && !parentOrigin &&
    props.hosted.allowedOrigins.includes(globalThis.location.origin);
  if (props.hosted && !parentOrigin && !selfAllowed) {
    return (
      <Frame title={props.title ?? props.projectKey} compact={props.compact} hosted>
        <div class="cad-notice" role="alert" data-error-code="not_embedded">
          <strong>Open this configurator on the partner's site.</strong>
          <span>
            It runs only inside a page of one of its key's allowed origins, which mints its
            sessions.
          </span>
        </div>
      </Frame>
    );
  }
  const providerProps: ConfiguratorProviderProps = {
    keyId: props.keyId,
    sessionToken: props.sessionToken,
    projectKey: props.projectKey,
    hubBaseUrl: props.hubBaseUrl,
    baseUrl: props.baseUrl,
    onTokenExpired: (d) => props.onEvent?.({ type: "tokenexpired", token: d.token }),
    fetch: props.fetch,
  };
  if (props.hosted && parentOrigin) {
    providerProps.mintPath = `/configurator/${encodeURIComponent(props.projectKey)}/session-token`;
    providerProps.mintExtras = { parentOrigin };
  }
  return (
    <ConfiguratorProvider {...providerProps}>
      <Shell {...props} parentOrigin={parentOrigin} />
    </ConfiguratorProvider>
  );
}

function Frame(
  props: {
    title: string;
    compact?: boolean;
    hosted: boolean;
    schema?: ParameterSchema;
    values?: Record<string, unknown>;
    children?: preact.ComponentChildren;
  },
) {
  const Root = props.hosted ? "main" : "section";
  return (
    <Root
      class="cad-configurator"
      aria-label={props.hosted ? undefined : props.title}
      data-token-status="loading"
      data-render-status="idle"
    >
      {!props.compact && (
        <header class="cad-bar">
          <h1 class="cad-title">{props.title}</h1>
        </header>
      )}
      <div class="cad-body">
        <div class="cad-stage">
          {props.children ?? (
            <div class="cad-viewer" data-state="empty">
              <div class="cad-viewer__overlay" role="status">
                <span class="cad-spinner" aria-hidden="true" />
                <span>Loading model…</span>
              </div>
            </div>
          )}
        </div>
        <div class="cad-panel">
          {props.schema && (
            <ParameterForm
              schema={props.schema}
              values={props.values ?? {}}
              onChange={() => {}}
              disabled
            />
          )}
        </div>
      </div>
    </Root>
  );
}

function Shell(props: ConfiguratorProps & { parentOrigin: string | null }) {
  const { session, hubBaseUrl, renderer, project: loadedProject } = useConfigurator();
  const { tokenStatus, refreshing } = useSession();
  const { status, result, error, budgetRemaining, render, project, projectError } = useRender();
  const [values, setValues] = useState<Record<string, unknown>>({ ...props.initialValues });
  const valuesRef = useRef(values);
  const viewRef = useRef<SceneView | null>(null);
  const emit = props.onEvent;
  const bridgeRef = useRef<EmbedBridge | null>(null);
  const rootRef = useRef<HTMLElement>(null);
  const [shareNotes, setShareNotes] = useState<ShareNote[]>([]);
  const [arMode, setArMode] = useState<ArMode | null>(null);
  const [arState, setArState] = useState<"idle" | "busy" | ArError["code"]>("idle");
  const arModelUrl = props.arModelUrl;
  // Scene Viewer fetches a GLB URL: the partner's, else a kernel AR ticket for the scene shown.
  const shownArMode = arMode;

  // The form takes a page change's values with their model (lib/client/page_change_sync.ts).
  const [formSync] = useState(() => new PageChangeSync(() => setValues(valuesRef.current)));
  useEffect(() => () => formSync.dispose(), []);

  // A color-only change is shown at once on the scene on screen (lib/client/color_preview.ts); the
  // render's answer replaces the preview, and an error takes it back.
  const routes = useMemo(
    () =>
      project?.template && project.schema ? colorRoutes(project.template, project.schema) : null,
    [project],
  );
  const [colorTarget, setColorTarget] = useState<Record<string, unknown> | null>(null);

  // Renders `next`. The form shows values from the form itself (and the first ones) at once, and
  // values the page set with their model.
  const apply = (next: Record<string, unknown>, announce: boolean, from: "form" | "page") => {
    valuesRef.current = next;
    const previewed = !!(routes && result && previewColors(result, next, routes));
    // Render first: its request is queued before the re-render setValues queues, so it leaves
    // before the form is diffed (lib/client/render_client.ts, #enqueue). A previewed change is
    // on screen in the next frame: its request leaves after that frame (RenderOptions.sendAfter).
    const rendered = render(next, previewed ? { sendAfter: afterNextPaint() } : undefined);
    setColorTarget(previewed ? next : null);
    // A previewed page change's model is on screen at once: the form shows its values with it.
    if (from === "form" || previewed) formSync.now();
    else formSync.withModel(rendered);
    if (announce) {
      emit?.({ type: "change", values: next });
      bridgeRef.current?.send({ type: "cad:change", values: next });
    }
  };

  // The form re-renders when its own inputs change (schema, values, the design's limits), not on
  // every render status: the status change an answer makes ("ready") is diffed between the
  // answer and the frame that draws it, so the form's fields must not be diffed again there.
  const applyRef = useRef(apply);
  applyRef.current = apply;
  const onFieldChange = useMemo(
    () => (name: string, v: unknown) =>
      applyRef.current({ ...valuesRef.current, [name]: v }, true, "form"),
    [],
  );
  const schema = project?.schema;
  // Every answer carries a new `effective` object (usually empty): keep the one the form has
  // while it says the same, so that an answer does not re-diff the form before its frame.
  const effectiveRef = useRef(result?.effective);
  const effective = effectiveRef.current = keptEffective(effectiveRef.current, result?.effective);
  const form = useMemo(
    () =>
      schema
        ? (
          <ParameterForm
            schema={schema}
            values={values}
            effective={effective}
            onChange={onFieldChange}
          />
        )
        : <div class="cad-panel__placeholder">Loading parameters…</div>,
    [schema, values, effective],
  );

  const controller: ConfiguratorController = {
    setParameters(v) {
      apply({ ...valuesRef.current, ...v }, true, "page");
    },
    getValues: () => ({ ...valuesRef.current }),
    async getConfiguration() {
      if (!project) throw new Error("the project is not loaded yet");
      const token = await session.getToken();
      return await requestConfiguration(hubBaseUrl, token, valuesRef.current, project.version);
    },
    refreshSessionToken: () => session.refreshSessionToken(),
    setSessionToken: (t) => session.setSessionToken(t),
    view: () => viewRef.current,
    getShareUrl(baseUrl) {
      if (!project) throw new Error("the project is not loaded yet");
      return createShareUrl(
        project,
        valuesRef.current,
        baseUrl ?? props.shareBaseUrl ?? shareBase(props.parentOrigin),
      );
    },
    async snapshot(options) {
      return await renderSnapshot(await settledResult(renderer.state), options);
    },
    async viewInAr() {
      setArState("busy");
      try {
        const launch = await viewInAr({
          mode: shownArMode,
          scene: () => settledResult(renderer.state),
          glbUrl: arModelUrl
            ? () => arModelUrl({ ...valuesRef.current })
            : async () => (await renderer.arTicket()).url,
          title: project?.title,
          container: rootRef.current ?? undefined,
        });
        setArState("idle");
        return launch;
      } catch (err) {
        setArState(err instanceof ArError ? err.code : "ar_unavailable");
        throw err;
      }
    },
  };
  const controllerRef = useRef(controller);
  controllerRef.current = controller;

  // The first values once the project is here: the schema's defaults, the page's initial values,
  // then a share link in this page's URL, which wins (it is the shopper's).
  const firstValues = (loaded: LoadedProject) => {
    const start: Record<string, unknown> = {};
    for (const p of loaded.schema!.parameters) start[p.name] = p.default;
    const restored = props.restoreShareLink === false
      ? null
      : restoreFromUrl(globalThis.location.href, loaded);
    return { values: { ...start, ...valuesRef.current, ...restored?.values }, restored };
  };
  // The first render's request leaves as the project arrives, before the configurator re-renders
  // with the project's form (25 ms and more of a slow device's first-model path); the layout
  // effect below asks for the same values as it mounts, and that one request answers both.
  useLayoutEffect(() =>
    loadedProject.subscribe((loaded) => {
      // Until the first values are applied, `valuesRef` holds the initial state object. Template
      // projects only: a python-mode design would run twice (its runs are not joined).
      if (loaded?.template && loaded.schema && valuesRef.current === values) {
        render(firstValues(loaded).values);
      }
    }), []);

  // First render once the project is here. A layout effect: the request goes out as the project
  // is committed, not a frame later.
  useLayoutEffect(() => {
    if (!project?.schema) return;
    const { values: merged, restored } = firstValues(project);
    if (restored) setShareNotes(restored.notes);
    apply(merged, false, "form");
    props.controller?.({
      setParameters: (v) => controllerRef.current.setParameters(v),
      getValues: () => controllerRef.current.getValues(),
      getConfiguration: () => controllerRef.current.getConfiguration(),
      refreshSessionToken: () => controllerRef.current.refreshSessionToken(),
      setSessionToken: (t) => controllerRef.current.setSessionToken(t),
      view: () => viewRef.current,
      getShareUrl: (base) => controllerRef.current.getShareUrl(base),
      snapshot: (options) => controllerRef.current.snapshot(options),
      viewInAr: () => controllerRef.current.viewInAr(),
    });
    emit?.({ type: "ready", project: project.slug, version: project.version, values: merged });
    if (props.parentOrigin) {
      const bridge = new EmbedBridge(globalThis as unknown as Window, props.parentOrigin, (msg) => {
        if (msg.type === "cad:setParameters") controllerRef.current.setParameters(msg.values);
        else if (msg.type === "cad:getShareUrl") {
          try {
            const url = controllerRef.current.getShareUrl(msg.baseUrl);
            const value = new URL(url).searchParams.get("cad") ?? "";
            bridge.send({ type: "cad:shareUrl", requestId: msg.requestId, url, value });
          } catch (err) {
            bridge.send({ type: "cad:shareUrl", requestId: msg.requestId, error: String(err) });
          }
        } else if (msg.type === "cad:snapshot") {
          const { type: _t, requestId, ...options } = msg;
          controllerRef.current.snapshot(options).then(
            (png) =>
              bridge.send({
                type: "cad:snapshot",
                requestId,
                png,
                width: options.width ?? SNAPSHOT_DEFAULTS.width,
                height: options.height ?? SNAPSHOT_DEFAULTS.height,
              }),
            (err) =>
              bridge.send({
                type: "cad:snapshot",
                requestId,
                error: err instanceof Error ? err.message : String(err),
                code: err instanceof SnapshotError ? err.code : undefined,
              }),
          );
        } else {
          controllerRef.current.getConfiguration().then(
            (c) => bridge.send({ type: "cad:configuration", requestId: msg.requestId, ...c }),
            (err) =>
              bridge.send({
                type: "cad:configuration",
                requestId: msg.requestId,
                error: err instanceof Error ? err.message : String(err),
              }),
          );
        }
      });
      bridgeRef.current = bridge;
      bridge.send({
        type: "cad:ready",
        project: project.slug,
        version: project.version,
        values: merged,
      });
      return () => bridge.dispose();
    }
  }, [project]);

  // As the viewer takes the scene (its layout effect runs first), so `cad-rendered` comes before
  // the frame that draws it, not after the next paint.
  useLayoutEffect(() => {
    if (!result) return;
    emit?.({ type: "rendered", result });
    bridgeRef.current?.send({
      type: "cad:rendered",
      dagHash: result.dagHash,
      meshes: result.parts.map((p) => p.mesh.hash),
      bbox: result.bbox,
      triangles: result.triangles,
      values: result.values,
    });
  }, [result]);

  useEffect(() => {
    emit?.({ type: "status", tokenStatus });
  }, [tokenStatus]);

  // In an effect, not at the first render: the server renders no AR button, and hydration must
  // match it.
  useEffect(() => setArMode(browserArMode()), []);

  // The partner's theme is read where it resolves (after layout); checked again after scenes,
  // when the page is idle (lib/client/theme_contrast_schedule.ts).
  const [contrast] = useState(() => new ThemeContrastSchedule());
  useEffect(() => () => contrast.dispose(), []);
  useEffect(() => {
    if (rootRef.current) contrast.scene(rootRef.current);
  }, [result]);

  const shown = explain(error ?? projectError, tokenStatus);
  const preview = useMemo(
    () =>
      colorTarget && routes && result && !shown ? previewColors(result, colorTarget, routes) : null,
    [colorTarget, routes, result, !shown],
  );
  useEffect(() => {
    if (shown) emit?.({ type: "error", code: shown.code, detail: shown.detail });
  }, [shown?.code, shown?.detail]);

  const loading = !shown && (status === "rendering" || (!result && status !== "error"));
  const Root = props.hosted ? "main" : "section";
  const title = project?.title ?? props.title ?? props.projectKey;
  return (
    <Root
      class="cad-configurator"
      ref={rootRef}
      aria-label={props.hosted ? undefined : title}
      data-token-status={tokenStatus.state}
      data-render-status={status}
      data-dag-hash={result?.dagHash ?? ""}
      data-error-code={shown?.code ?? ""}
    >
      {!props.compact && (
        <header class="cad-bar">
          <h1 class="cad-title">{title}</h1>
          <StatusPill status={tokenStatus} refreshing={refreshing} refused={refused(shown)} />
        </header>
      )}
      <div class="cad-body">
        <div class="cad-stage">
          <Viewer
            result={preview ?? result}
            loading={loading}
            loadingText={project?.mode === "python"
              ? "Starting the design runtime (a few seconds the first time)…"
              : undefined}
            error={shown}
            title={title}
            onView={(v) => (viewRef.current = v)}
          />
          {shownArMode && result && !shown && (
            <div class="cad-viewer__tools cad-ar" data-ar-mode={shownArMode}>
              <button
                type="button"
                class="cad-ar__button"
                aria-busy={arState === "busy" ? "true" : undefined}
                data-ar-state={arState}
                onClick={() =>
                  controllerRef.current.viewInAr().catch(() => {})}
              >
                {arState === "busy"
                  ? "Preparing AR…"
                  : arState === "idle"
                  ? "View in AR"
                  : "AR not available"}
              </button>
            </div>
          )}
        </div>
        <div class="cad-panel">
          {shareNotes.length > 0 && (
            <ShareNotes
              notes={shareNotes}
              onDismiss={() => setShareNotes([])}
            />
          )}
          {form}
        </div>
      </div>
      <footer class="cad-foot">
        {props.compact && (
          <StatusPill status={tokenStatus} refreshing={refreshing} refused={refused(shown)} />
        )}
        <span class="cad-foot__item" data-budget={budgetRemaining ?? ""}>
          {typeof budgetRemaining === "number"
            ? `${budgetRemaining} renders left`
            : budgetRemaining === null
            ? "Unlimited renders"
            : ""}
        </span>
        {result && (
          <span class="cad-foot__item">
            {trianglesText(result)} · {sizeText(result)}
          </span>
        )}
      </footer>
    </Root>
  );
}

/** What did not come back from a share link, shown once above the form (never in the console). */
function ShareNotes({ notes, onDismiss }: { notes: ShareNote[]; onDismiss: () => void }) {
  return (
    <div
      class="cad-share-note"
      role="status"
      data-share-notes={notes.map((n) => n.reason).join(" ")}
    >
      <div class="cad-share-note__text">
        <strong>
          {notes.every((n) => n.reason === "other_version")
            ? "Restored from a shared link."
            : "Not everything in this link could be restored."}
        </strong>
        <ul>
          {notes.map((n, i) => <li key={i}>{n.message}</li>)}
        </ul>
      </div>
      <button type="button" aria-label="Dismiss" onClick={onDismiss}>×</button>
    </div>
  );
}

/**
 * The default base of share links: this page, or inside the hosted iframe the parent's page (its
 * full URL when the referrer carries it, else its origin).
 */
function shareBase(parentOrigin: string | null): string {
  if (!parentOrigin) return globalThis.location.href;
  try {
    const referrer = new URL(document.referrer);
    if (referrer.origin === parentOrigin) return referrer.href;
  } catch {
    // no referrer: the origin alone
  }
  return `${parentOrigin}/`;
}

/** Whether the error means the session cannot be used here at all. */
function refused(shown: { code: string } | null): boolean {
  return shown !== null && REFUSED.has(shown.code);
}

const REFUSED = new Set([
  "origin_mismatch",
  "origin_not_allowed",
  "token_revoked",
  "invalid_token",
  "key_revoked",
  "unknown_key",
  "budget_exhausted",
]);

function StatusPill(
  { status, refreshing, refused }: { status: SessionStatus; refreshing: boolean; refused: boolean },
) {
  if (refused) {
    return (
      <span class="cad-pill cad-pill--error" data-token-pill={status.state}>
        <span class="cad-pill__dot" aria-hidden="true" />
        Not available
      </span>
    );
  }
  const text = status.state === "ready"
    ? refreshing ? "Live · renewing" : "Live"
    : status.state === "provided"
    ? "Live · partner session"
    : status.state === "loading"
    ? "Connecting…"
    : "Offline";
  return (
    <span class={`cad-pill cad-pill--${status.state}`} data-token-pill={status.state}>
      <span class="cad-pill__dot" aria-hidden="true" />
      {text}
    </span>
  );
}

/** The error to show, with a message that says what happened and what to do. */
function explain(
  error: RenderError | null,
  tokenStatus: SessionStatus,
): { code: string; detail: string; title?: string } | null {
  const here = globalThis.location?.origin;
  if (tokenStatus.state === "provided") {
    const bound = readTokenOrigin(tokenStatus.token);
    if (error && bound && here && bound !== here) {
      return {
        code: "origin_mismatch",
        detail:
          `This session token was issued for ${bound}, so the render service refuses it on ${here}. ` +
          `Mint the token for this page's origin.`,
      };
    }
  }
  if (tokenStatus.state === "error") {
    const code = tokenStatus.code ?? "mint_failed";
    return {
      code,
      title: code === "network_error" ? "This site could not start a session" : undefined,
      detail: code === "network_error"
        ? `No session could be started: ${here} may not be an allowed origin of this key, or the hub is unreachable.`
        : tokenStatus.error,
    };
  }
  if (!error || error.code === "aborted") return null;
  return { code: error.code, detail: error.detail };
}
