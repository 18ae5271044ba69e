/**
 * `<cad-configurator>` with the configurator bundled in: the npm package's element
 * (`@cad-configurator/sdk/element`) and the hub's element bundle, which `embed.js` loads
 * (lib/sdk/embed_shell.ts: there the element is defined before this arrives, and this module's
 * `mountConfigurator` is what it renders). See lib/sdk/configurator_element.ts.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { CadConfiguratorElement } from "./configurator_element.ts";
import { mountConfigurator } from "./mount_configurator.ts";

export { CadConfiguratorElement, type MountConfigurator } from "./configurator_element.ts";
export { mountConfigurator } from "./mount_configurator.ts";

if (typeof customElements !== "undefined") {
  CadConfiguratorElement.define(() => Promise.resolve(mountConfigurator));
}
