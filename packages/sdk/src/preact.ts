/**
 * `@cad-configurator/sdk/preact`: the Preact islands (`Configurator`, `ConfiguratorProvider`,
 * `Viewer`, `ParameterForm`, `useSession`, `useRender`) — the same module the hub serves at
 * `/sdk/v1/preact.js`, with `preact` as the app's own (a peer dependency).
 */
export * from "../../../lib/sdk/preact_entry.ts";
