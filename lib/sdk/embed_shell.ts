/**
 * The code of the hub's stable `embed.js` (lib/sdk/bundle_route.ts inlines this module's bundle
 * there, after a line naming the element's bundle as `__CAD_CONFIGURATOR_BUNDLE__`). As soon as
 * `embed.js` runs, it starts the early requests of the `<cad-configurator>` elements already in the
 * page (lib/sdk/early_requests.ts) and defines the element, which loads the configurator from that
 * bundle (lib/sdk/embed_element.ts). The element is defined before the page's `DOMContentLoaded`,
 * as when `embed.js` imported the bundle statically, and earlier than then: nothing waits for the
 * bundle.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { CadConfiguratorElement, type MountConfigurator } from "./configurator_element.ts";
import { startEarlyRequests } from "./early_requests.ts";

/** The element's bundle, named by the line `embed.js` puts before this code. */
declare const __CAD_CONFIGURATOR_BUNDLE__: string;

export { CadConfiguratorElement } from "./configurator_element.ts";

if (typeof customElements !== "undefined" && !customElements.get("cad-configurator")) {
  startEarlyRequests(document, new URL(import.meta.url).origin);
  const bundle = __CAD_CONFIGURATOR_BUNDLE__;
  CadConfiguratorElement.define(() =>
    import(bundle).then((m: { mountConfigurator: MountConfigurator }) => m.mountConfigurator)
  );
}
