/**
 * The Preact side of the SDK for partners' own apps (served at `/sdk/v1/preact.js`): the
 * provider, hooks, viewer, form and the whole configurator, plus the framework-free core. The
 * module bundles its own Preact; a React app mounts it with `mount(element, props)`.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { h, render } from "preact";
import Configurator, { type ConfiguratorProps } from "../../islands/Configurator.tsx";
import { runEffectsInTasks } from "../web/effect_scheduling.ts";

export { h, render } from "preact";
export { default as Configurator } from "../../islands/Configurator.tsx";
export type {
  ConfiguratorController,
  ConfiguratorEvent,
  ConfiguratorProps,
} from "../../islands/Configurator.tsx";
export {
  default as ConfiguratorProvider,
  useConfigurator,
  useRender,
  useSession,
  useShareUrl,
  useSnapshot,
} from "../../islands/ConfiguratorProvider.tsx";
export { default as Viewer } from "../../islands/Viewer.tsx";
export { default as ParameterForm } from "../../islands/ParameterForm.tsx";
export { RenderClient, SessionClient } from "../client/mod.ts";
export { CONFIGURATOR_CSS } from "../client/configurator_styles.ts";
export {
  createShareUrl,
  restoreFromUrl,
  type ShareNote,
  type ShareRestore,
} from "../client/share_link.ts";
export {
  blobToDataUrl,
  renderSnapshot,
  SnapshotError,
  type SnapshotOptions,
} from "../client/snapshot.ts";

export { effectsInTasks, runEffectsInTasks } from "../web/effect_scheduling.ts";

/**
 * Renders a configurator into `element` (for React or plain-JS apps); returns an unmount function.
 * Inject `CONFIGURATOR_CSS` once into the page (or the shadow root) that holds it. Its Preact runs
 * effects in tasks (`runEffectsInTasks`); a Preact app using the components directly may call that
 * itself.
 */
export function mount(element: Element, props: ConfiguratorProps): () => void {
  runEffectsInTasks();
  render(h(Configurator, props), element);
  return () => render(null, element);
}
