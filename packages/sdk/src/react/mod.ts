/**
 * `@cad-configurator/sdk/react`: React 18/19 components and hooks over the framework-free core —
 * `ConfiguratorProvider` (spec 4.3 props), `useSession`, `useRender`, `Viewer`, `ParameterForm` and
 * the whole `Configurator`. StrictMode-safe (every effect cleans up; the stylesheet goes into the
 * document once) and safe to import during server rendering (nothing touches `window` at load).
 */
export { ConfiguratorProvider, type ConfiguratorProviderProps } from "./ConfiguratorProvider.ts";
export { useConfigurator } from "./context.ts";
export { type UseSession, useSession } from "./use_session.ts";
export { type UseRender, useRender } from "./use_render.ts";
export { Viewer, type ViewerProps } from "./Viewer.ts";
export { ParameterForm, type ParameterFormProps } from "./ParameterForm.ts";
export {
  Configurator,
  type ConfiguratorEvent,
  type ConfiguratorHandle,
  type ConfiguratorProps,
} from "./Configurator.ts";
export { useShareUrl, useSnapshot } from "./use_share_snapshot.ts";
export {
  injectConfiguratorStyles,
  STYLE_MARKER,
  useConfiguratorStyles,
} from "./use_configurator_styles.ts";
export { useSignalValue } from "./use_signal_value.ts";
export type { ConfiguratorClients } from "../../../../lib/client/configurator_clients.ts";
