/**
 * The clients one configurator needs, created together for a provider's props (spec 4.3): a
 * `SessionClient` (browser or server flow), a `RenderClient`, the Python runtime for python-mode
 * projects, and the project being loaded. Framework-free, so any UI layer (the React provider of
 * the npm package, a Vue or Svelte app) builds on the same lifecycle: create in an effect, read the
 * signals, `dispose()` in the effect's cleanup.
 *
 * Runs in browsers: no Deno APIs here.
 *
 * @example
 * ```ts
 * const clients = createConfiguratorClients({ keyId, projectKey: "wall-bracket", hubBaseUrl });
 * clients.project.subscribe((p) => p && clients.renderer.render({ width: 60 }));
 * clients.dispose();
 * ```
 */
import { type ReadonlySignal, signal } from "@preact/signals-core";
import type { LoadedProject } from "./project_loader.ts";
import type { RenderError } from "./problem.ts";
import { RenderClient } from "./render_client.ts";
import { PythonRuntime } from "./python_runtime.ts";
import { SessionClient, type TokenExpiredDetail } from "./session_client.ts";

/** Client configuration (spec 4.3), plus the server flow's expiry callback. */
export interface ConfiguratorClientOptions {
  /** The publishable `<keyId>` (browser flow). */
  keyId?: string;
  /** A token from the partner's backend (server flow: status `provided`, no refresh). */
  sessionToken?: string;
  /** The project slug (sent to the hub as `projectId`). */
  projectKey: string;
  /** The hub's base URL (default this page's origin). */
  hubBaseUrl?: string;
  /** The render service's base URL (default `hubBaseUrl`). */
  baseUrl?: string;
  /** Server flow: called when the token expired, so the backend can hand over a new one. */
  onTokenExpired?: (detail: TokenExpiredDetail) => void;
}

/** The clients of one configurator and the project they load. */
export interface ConfiguratorClients {
  session: SessionClient;
  renderer: RenderClient;
  /** Runs python-mode designs (nothing loads until a python-mode project renders). */
  python: PythonRuntime;
  projectKey: string;
  hubBaseUrl: string;
  baseUrl: string;
  /** The loaded project (null until loaded). */
  project: ReadonlySignal<LoadedProject | null>;
  /** Why the project could not be loaded (null while loading or loaded). */
  projectError: ReadonlySignal<RenderError | null>;
  /** Aborts what is in flight and frees everything (idempotent). */
  dispose(): void;
}

/** Creates the clients for `options` and starts loading the project (and, browser flow, a mint). */
export function createConfiguratorClients(options: ConfiguratorClientOptions): ConfiguratorClients {
  const hubBaseUrl = (options.hubBaseUrl ?? globalThis.location?.origin ?? "").replace(/\/+$/, "");
  const baseUrl = (options.baseUrl ?? hubBaseUrl).replace(/\/+$/, "");
  const session = options.sessionToken
    ? new SessionClient({
      sessionToken: options.sessionToken,
      onTokenExpired: (detail) => options.onTokenExpired?.(detail),
    })
    : new SessionClient({ keyId: options.keyId ?? "", projectKey: options.projectKey, hubBaseUrl });
  const python = new PythonRuntime({ hubBaseUrl });
  const renderer = new RenderClient({ baseUrl, session, design: python });
  const project = signal<LoadedProject | null>(null);
  const projectError = signal<RenderError | null>(null);
  let disposed = false;
  renderer.loadProject(options.projectKey).then(
    (p) => !disposed && (project.value = p),
    (err: RenderError) => !disposed && (projectError.value = err),
  );
  return {
    session,
    renderer,
    python,
    projectKey: options.projectKey,
    hubBaseUrl,
    baseUrl,
    project,
    projectError,
    dispose() {
      if (disposed) return;
      disposed = true;
      renderer.dispose();
      python.dispose();
      session.dispose();
    },
  };
}
