/**
 * `<cad-configurator>`: the configurator as a custom element, for partner pages without a
 * framework. It renders the `Configurator` island into a shadow root (the partner's CSS and ours
 * stay apart). The class itself is small and holds no Preact: what it renders comes from a
 * `MountConfigurator` it loads when it first connects (`CadConfiguratorElement.define`). The
 * hub's `embed.js` defines it as soon as that module runs and loads the rest as its own bundle
 * (lib/sdk/embed_shell.ts), so the element exists, queues method calls and has sent its first
 * requests while the bundle downloads; from npm (lib/sdk/embed_element.ts) the rest is bundled in.
 *
 * Attributes: `key-id` (browser flow) or `session-token` (server flow; set it again to hand over
 * a new token), `project`, `hub-url` (default: where this script came from), `kernel-url`
 * (default `hub-url`), `values` (JSON of initial parameter values), `compact`, `share-url` (the
 * base of share links, default this page's URL). A `cad` share link in the page's URL is restored.
 * Events (bubbling, composed `CustomEvent`s): `cad-ready`, `cad-change`, `cad-rendered`,
 * `cad-status`, `cad-tokenexpired`, `cad-error`. Methods: `setParameters(values)`,
 * `getConfiguration()`, `refreshSessionToken()`, `setSessionToken(token)`, `getShareUrl()`,
 * `snapshot(options)` (a PNG `Blob`), `snapshotDataUrl(options)`, `viewInAr()` (the "View in AR"
 * button's action; the button shows only on devices with an AR viewer). Methods called before the
 * configurator is ready wait for it.
 *
 * Runs in browsers: no Deno APIs here.
 */
import type {
  ConfiguratorController,
  ConfiguratorEvent,
  ConfiguratorProps,
} from "../../islands/Configurator.tsx";
import type { SessionStatus } from "../client/mod.ts";
import type { SnapshotOptions } from "../client/snapshot.ts";
import { blobToDataUrl } from "../client/blob_data_url.ts";
import type { ArLaunch } from "../client/ar_launch.ts";
import { prefetchedFetch } from "../client/prefetch.ts";
import { embedClientAttributes } from "./embed_attributes.ts";

/** The hub this script was loaded from (the default `hub-url`). */
const SCRIPT_ORIGIN = new URL(import.meta.url).origin;

/**
 * Renders the configurator with `props` into `mount`, inside the element's shadow `root` (its
 * styles go there too); returns the function that takes it down (lib/sdk/mount_configurator.ts).
 */
export type MountConfigurator = (
  root: ShadowRoot,
  mount: HTMLElement,
  props: ConfiguratorProps,
) => () => void;

/** The `<cad-configurator>` element class. */
export class CadConfiguratorElement extends HTMLElement {
  static observedAttributes = ["session-token"];

  /**
   * Defines `<cad-configurator>` (once per page: a later call changes nothing) with `load` as
   * where its configurator comes from, asked for when the first element connects.
   */
  static define(load: () => Promise<MountConfigurator>): void {
    if (customElements.get("cad-configurator")) return;
    loader = load;
    customElements.define("cad-configurator", CadConfiguratorElement);
  }

  #mount: HTMLDivElement | undefined;
  #unmount: (() => void) | undefined;
  #controller: ConfiguratorController | undefined;
  #pending: Array<(c: ConfiguratorController) => void> = [];
  #status: SessionStatus = { state: "loading" };

  /** The current token status (spec 3). */
  get tokenStatus(): SessionStatus {
    return this.#status;
  }

  /** The three.js view (benchmarks and tests read its geometry count). */
  get view() {
    return this.#controller?.view() ?? null;
  }

  connectedCallback(): void {
    if (this.#mount) return;
    const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
    const mount = this.#mount = document.createElement("div");
    mount.style.height = "100%";
    root.append(mount);
    let initialValues: Record<string, unknown> | undefined;
    const raw = this.getAttribute("values");
    if (raw) {
      try {
        initialValues = JSON.parse(raw);
      } catch {
        console.warn("<cad-configurator>: the values attribute is not JSON; ignored");
      }
    }
    const props: ConfiguratorProps = {
      ...embedClientAttributes(this, SCRIPT_ORIGIN),
      // Answers the requests embed.js started for this element before the configurator's code
      // arrived (lib/client/prefetch.ts).
      fetch: prefetchedFetch(),
      initialValues,
      compact: this.hasAttribute("compact"),
      shareBaseUrl: this.getAttribute("share-url") ?? undefined,
      onEvent: (e) => this.#dispatch(e),
      controller: (c) => {
        this.#controller = c;
        for (const fn of this.#pending.splice(0)) fn(c);
      },
    };
    loadConfigurator().then(
      (mountConfigurator) => {
        // Still this mount: not disconnected (and perhaps connected again) meanwhile.
        if (this.#mount === mount) this.#unmount = mountConfigurator(root, mount, props);
      },
      (err) => {
        if (this.#mount !== mount) return;
        console.error("<cad-configurator>: the configurator's code did not load:", err);
        this.#dispatch({
          type: "error",
          code: "configurator_unavailable",
          detail: "The configurator's code did not load; check the connection and reload.",
        });
      },
    );
  }

  disconnectedCallback(): void {
    this.#unmount?.();
    this.#unmount = undefined;
    this.#mount = undefined;
    this.#controller = undefined;
    this.shadowRoot?.replaceChildren();
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (name === "session-token" && old !== null && value && value !== old) {
      this.#withController((c) => c.setSessionToken(value));
    }
  }

  /** Sets parameter values (merged into the current ones) and renders. */
  setParameters(values: Record<string, unknown>): void {
    this.#withController((c) => c.setParameters(values));
  }

  /** The hub-signed configuration of the current values (docs/embedding.md). */
  getConfiguration() {
    return new Promise<Awaited<ReturnType<ConfiguratorController["getConfiguration"]>>>(
      (resolve, reject) => this.#withController((c) => c.getConfiguration().then(resolve, reject)),
    );
  }

  /** A link to this page that reopens the current values (`baseUrl` default: `share-url`). */
  getShareUrl(baseUrl?: string): Promise<string> {
    return new Promise((resolve, reject) =>
      this.#withController((c) => {
        try {
          resolve(c.getShareUrl(baseUrl));
        } catch (err) {
          reject(err);
        }
      })
    );
  }

  /** A PNG of the current configuration (isometric, white, 512 × 512 unless `options` say). */
  snapshot(options?: SnapshotOptions): Promise<Blob> {
    return new Promise((resolve, reject) =>
      this.#withController((c) => c.snapshot(options).then(resolve, reject))
    );
  }

  /** The snapshot as a `data:image/png;base64,…` URL. */
  async snapshotDataUrl(options?: SnapshotOptions): Promise<string> {
    return await blobToDataUrl(await this.snapshot(options));
  }

  /** Opens the current configuration in the device's AR viewer (rejects with `ArError`). */
  viewInAr(): Promise<ArLaunch> {
    return new Promise((resolve, reject) =>
      this.#withController((c) => c.viewInAr().then(resolve, reject))
    );
  }

  /** Browser flow: mints a new token now. */
  refreshSessionToken(): Promise<string> {
    return new Promise((resolve, reject) =>
      this.#withController((c) => c.refreshSessionToken().then(resolve, reject))
    );
  }

  /** Server flow: hands over a new token from the partner's backend. */
  setSessionToken(token: string): void {
    this.#withController((c) => c.setSessionToken(token));
  }

  #withController(fn: (c: ConfiguratorController) => void): void {
    if (this.#controller) fn(this.#controller);
    else this.#pending.push(fn);
  }

  #dispatch(event: ConfiguratorEvent): void {
    if (event.type === "status") this.#status = event.tokenStatus;
    const { type, ...detail } = event;
    // Set when it changes, not with every event: a write of the same value is still a mutation
    // (the page's observers see it, and the attribute's selectors are checked again).
    if (this.dataset.tokenStatus !== this.#status.state) {
      this.dataset.tokenStatus = this.#status.state;
    }
    this.dispatchEvent(new CustomEvent(`cad-${type}`, { detail, bubbles: true, composed: true }));
  }
}

/** Where the configurator comes from (set by `define`). */
let loader: (() => Promise<MountConfigurator>) | undefined;
let loading: Promise<MountConfigurator> | undefined;

/** The configurator's code, loaded once; a failed load is tried again by the next element. */
function loadConfigurator(): Promise<MountConfigurator> {
  if (!loader) return Promise.reject(new Error("CadConfiguratorElement.define was not called"));
  loading ??= loader().catch((err) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
