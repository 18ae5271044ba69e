/**
 * What `<cad-configurator>` renders (lib/sdk/configurator_element.ts): the `Configurator` island
 * with its styles, in the element's shadow root. The element's Preact runs `useEffect` callbacks in
 * tasks, not after animation frames it asks for (`runEffectsInTasks`, lib/web/effect_scheduling.ts).
 * The hub's `embed.js` bundle carries its own Preact; from npm, where Preact is a peer dependency,
 * this applies to the page's Preact too.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { h, render } from "preact";
import Configurator from "../../islands/Configurator.tsx";
import { CONFIGURATOR_CSS } from "../client/configurator_styles.ts";
import { runEffectsInTasks } from "../web/effect_scheduling.ts";
import type { MountConfigurator } from "./configurator_element.ts";

/** Renders the configurator into `mount` (its styles into `root`); returns its unmount. */
export const mountConfigurator: MountConfigurator = (root, mount, props) => {
  runEffectsInTasks();
  const style = document.createElement("style");
  style.textContent = CONFIGURATOR_CSS;
  root.prepend(style);
  render(h(Configurator, props), mount);
  return () => {
    render(null, mount);
    style.remove();
  };
};
