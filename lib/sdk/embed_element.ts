/**
 * `<cad-configurator>`: the configurator as a custom element, for partner pages without a
 * framework (served at `/sdk/v1/embed.js`). It renders the `Configurator` island into a shadow
 * root (the partner's CSS and ours stay apart).
 *
 * Attributes: `key-id` (browser flow) or `session-token` (server flow; set it again to hand over
 * a new token), `project`, `hub-url` (default: where this script came from), `kernel-url`
 * (default `hub-url`), `values` (JSON of initial parameter values), `compact`, `share-url` (the
 * base of share links, default this page's URL). A `cad` share link in the page's URL is restored.
 * Events (bubbling, composed `CustomEvent`s): `cad-ready`, `cad-change`, `cad-rendered`,
 * `cad-status`, `cad-tokenexpired`, `cad-error`. Methods: `setParameters(values)`,
 * `getConfiguration()`, `refreshSessionToken()`, `setSessionToken(token)`, `getShareUrl()`,
 * `snapshot(options)` (a PNG `Blob`), `snapshotDataUrl(options)`, `viewInAr()` (the "View in AR"
 * button's action; the button shows only on devices with an AR viewer).
 *
 * The element's Preact runs `useEffect` callbacks in tasks, not after animation frames it asks for
 * (`runEffectsInTasks`, lib/web/effect_scheduling.ts). The hub's `embed.js` bundles its own
 * Preact; from npm, where Preact is a peer dependency, this applies to the page's Preact too.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { h, render } from "preact";
import Configurator, {
  type ConfiguratorController,
  type ConfiguratorEvent,
} from "../../islands/Configurator.tsx";
import { CONFIGURATOR_CSS } from "../client/configurator_styles.ts";
import type { SessionStatus } from "../client/mod.ts";
import { blobToDataUrl, type SnapshotOptions } from "../client/snapshot.ts";
import type { ArLaunch } from "../client/ar_launch.ts";
import { runEffectsInTasks } from "../web/effect_scheduling.ts";

/** The hub this script was loaded from (the default `hub-url`). */
const SCRIPT_ORIGIN = new URL(import.meta.url).origin;

/** The `<cad-configurator>` element class. */
export class CadConfiguratorElement extends HTMLElement {
  static observedAttributes = ["session-token"];
  #root: ShadowRoot | undefined;
  #mount: HTMLDivElement | undefined;
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
    if (this.#root) return;
    this.#root = this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = CONFIGURATOR_CSS;
    this.#mount = document.createElement("div");
    this.#mount.style.height = "100%";
    this.#root.append(style, this.#mount);
    const hub = this.getAttribute("hub-url") ?? SCRIPT_ORIGIN;
    let initialValues: Record<string, unknown> | undefined;
    const raw = this.getAttribute("values");
    if (raw) {
      try {
        initialValues = JSON.parse(raw);
      } catch {
        console.warn("<cad-configurator>: the values attribute is not JSON; ignored");
      }
    }
    render(
      h(Configurator, {
        keyId: this.getAttribute("key-id") ?? undefined,
        sessionToken: this.getAttribute("session-token") ?? undefined,
        projectKey: this.getAttribute("project") ?? "",
        hubBaseUrl: hub,
        baseUrl: this.getAttribute("kernel-url") ?? hub,
        initialValues,
        compact: this.hasAttribute("compact"),
        shareBaseUrl: this.getAttribute("share-url") ?? undefined,
        onEvent: (e) => this.#dispatch(e),
        controller: (c) => {
          this.#controller = c;
          for (const fn of this.#pending.splice(0)) fn(c);
        },
      }),
      this.#mount,
    );
  }

  disconnectedCallback(): void {
    if (this.#mount) render(null, this.#mount);
    this.#root = undefined;
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

if (!customElements.get("cad-configurator")) {
  runEffectsInTasks();
  customElements.define("cad-configurator", CadConfiguratorElement);
}
