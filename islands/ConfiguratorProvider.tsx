/**
 * The provider of the client library (spec 4.3): owns one `SessionClient` and one `RenderClient`
 * for a project and hands them to the viewer, the form and the hooks below it.
 *
 * Props: `keyId` (browser flow) or `sessionToken` (server flow), `projectKey`, `hubBaseUrl`,
 * `baseUrl`. `useSession()` gives the token status signal and `refreshSessionToken()`;
 * `useRender()` the render state (idle / rendering / ready / error, last result, budget left).
 */
import { type ComponentChildren, createContext } from "preact";
import { useContext, useEffect, useMemo, useState } from "preact/hooks";
import { type ReadonlySignal, signal as signalOf } from "@preact/signals";
import {
  type BudgetRemaining,
  type LoadedProject,
  RenderClient,
  type RenderError,
  type RenderOptions,
  type RenderResult,
  type RenderState,
  SessionClient,
  type SessionStatus,
  type TokenExpiredDetail,
} from "../lib/client/mod.ts";
import { PythonRuntime } from "../lib/client/python_runtime.ts";
import { createShareUrl } from "../lib/client/share_link.ts";
import { renderSnapshot, settledResult, type SnapshotOptions } from "../lib/client/snapshot.ts";

/** Props of `ConfiguratorProvider` (spec 4.3, plus the server flow's expiry callback). */
export interface ConfiguratorProviderProps {
  /** The publishable `<keyId>` (browser flow). */
  keyId?: string;
  /** A token from the partner's backend (server flow: status `provided`, no refresh). */
  sessionToken?: string;
  /** The project slug (sent to the hub as `projectId`). */
  projectKey: string;
  /** The hub's base URL (default the production hub). */
  hubBaseUrl?: string;
  /** The render service's base URL (default `hubBaseUrl`). */
  baseUrl?: string;
  /** Server flow: called when the token expired, so the backend can hand over a new one. */
  onTokenExpired?: (detail: TokenExpiredDetail) => void;
  /** The `fetch` the clients send with (default the global one). */
  fetch?: typeof fetch;
  /** Internal: the hosted configurator mints through its own hub endpoint. */
  mintPath?: string;
  /** Internal: extra mint body members (the hosted configurator's parent origin). */
  mintExtras?: Record<string, string>;
  children?: ComponentChildren;
}

/** What the provider shares. */
export interface ConfiguratorContextValue {
  session: SessionClient;
  renderer: RenderClient;
  /** Runs python-mode designs (nothing loads until a python-mode project renders). */
  python: PythonRuntime;
  projectKey: string;
  hubBaseUrl: string;
  baseUrl: string;
  /** The loaded project (null until loaded), or the load error. */
  project: ReadonlySignal<LoadedProject | null>;
  projectError: ReadonlySignal<RenderError | null>;
}

const ConfiguratorContext = createContext<ConfiguratorContextValue | null>(null);

/** Provides a session and a renderer for `projectKey` to its children. */
export default function ConfiguratorProvider(props: ConfiguratorProviderProps) {
  const value = useConfiguratorClients(props);
  return <ConfiguratorContext.Provider value={value}>{props.children}
  </ConfiguratorContext.Provider>;
}

/** Creates (once) and disposes the clients for a provider's props. */
function useConfiguratorClients(props: ConfiguratorProviderProps): ConfiguratorContextValue {
  const value = useMemo(() => createClients(props), [
    props.keyId,
    props.sessionToken === undefined,
    props.projectKey,
    props.hubBaseUrl,
    props.baseUrl,
  ]);
  // A new token from the partner's backend replaces the old one in place (server flow).
  useEffect(() => {
    if (props.sessionToken && value.session.flow === "server") {
      const status = value.session.status.peek();
      if (status.state !== "provided" || status.token !== props.sessionToken) {
        value.session.setSessionToken(props.sessionToken);
      }
    }
  }, [props.sessionToken, value]);
  useEffect(() => () => {
    value.renderer.dispose();
    value.python.dispose();
    value.session.dispose();
  }, [value]);
  return value;
}

function createClients(props: ConfiguratorProviderProps): ConfiguratorContextValue {
  const hubBaseUrl = (props.hubBaseUrl ?? globalThis.location?.origin ?? "").replace(/\/+$/, "");
  const baseUrl = (props.baseUrl ?? hubBaseUrl).replace(/\/+$/, "");
  const session = props.sessionToken
    ? new SessionClient({
      sessionToken: props.sessionToken,
      onTokenExpired: (detail) => props.onTokenExpired?.(detail),
    })
    : new SessionClient({
      keyId: props.keyId ?? "",
      projectKey: props.projectKey,
      hubBaseUrl,
      mintPath: props.mintPath,
      mintExtras: props.mintExtras,
      fetch: props.fetch,
    });
  // Python-mode projects run their design in the browser; Pyodide loads on the first render only.
  const python = new PythonRuntime({ hubBaseUrl });
  const renderer = new RenderClient({ baseUrl, session, design: python, fetch: props.fetch });
  const project = signalOf<LoadedProject | null>(null);
  const projectError = signalOf<RenderError | null>(null);
  renderer.loadProject(props.projectKey).then(
    (p) => (project.value = p),
    (err: RenderError) => (projectError.value = err),
  );
  return {
    session,
    renderer,
    python,
    projectKey: props.projectKey,
    hubBaseUrl,
    baseUrl,
    project,
    projectError,
  };
}

/** The provider's clients; throws outside a `ConfiguratorProvider`. */
export function useConfigurator(): ConfiguratorContextValue {
  const value = useContext(ConfiguratorContext);
  if (!value) throw new Error("useConfigurator must be used inside <ConfiguratorProvider>");
  return value;
}

/** The token status signal and the session's actions. */
export function useSession(): {
  tokenStatus: SessionStatus;
  refreshing: boolean;
  refreshSessionToken: () => Promise<string>;
  setSessionToken: (token: string) => void;
  session: SessionClient;
} {
  const { session } = useConfigurator();
  return {
    // Reading `.value` in render subscribes the component (@preact/signals).
    tokenStatus: session.status.value,
    refreshing: session.refreshing.value,
    refreshSessionToken: () => session.refreshSessionToken(),
    setSessionToken: (token) => session.setSessionToken(token),
    session,
  };
}

/** What `useRender` gives. */
export interface UseRender {
  status: RenderState["status"];
  result: RenderResult | null;
  error: RenderError | null;
  budgetRemaining: BudgetRemaining;
  /** Renders `values`; errors also land in `error` (the promise never rejects). */
  render: (
    values: Record<string, unknown>,
    options?: RenderOptions,
  ) => Promise<RenderResult | null>;
  project: LoadedProject | null;
  projectError: RenderError | null;
}

/** The render hook: status (idle / rendering / ready / error), last result, budget left. */
export function useRender(): UseRender {
  const { renderer, project, projectError } = useConfigurator();
  const state = renderer.state.value;
  const [render] = useState(() => (values: Record<string, unknown>, options?: RenderOptions) =>
    renderer.render(values, options).catch(() => null)
  );
  return {
    status: state.status,
    result: state.result,
    error: state.status === "error" ? state.error : null,
    budgetRemaining: state.budgetRemaining,
    render,
    project: project.value,
    projectError: projectError.value,
  };
}

/**
 * The share link of `values` on `baseUrl` (default: this page); null until the project loaded.
 * For layouts built from the hooks (the whole `Configurator` has `getShareUrl` on its controller).
 */
export function useShareUrl(values: Record<string, unknown>, baseUrl?: string): string | null {
  const { project } = useConfigurator();
  const loaded = project.value;
  return useMemo(
    () =>
      loaded && typeof document !== "undefined"
        ? createShareUrl(loaded, values, baseUrl ?? globalThis.location.href)
        : null,
    [loaded, values, baseUrl],
  );
}

/** A function that makes a PNG of the provider's current scene (lib/client/snapshot.ts). */
export function useSnapshot(): (options?: SnapshotOptions) => Promise<Blob> {
  const { renderer } = useConfigurator();
  const [snapshot] = useState(() => async (options?: SnapshotOptions) =>
    await renderSnapshot(await settledResult(renderer.state), options)
  );
  return snapshot;
}
