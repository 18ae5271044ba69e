/**
 * The React context a `ConfiguratorProvider` fills: the framework-free clients of one configurator
 * (lib/client/configurator_clients.ts), or null before the provider's effect created them (the
 * first render, server rendering).
 */
import { createContext, useContext } from "react";
import type { ConfiguratorClients } from "../../../../lib/client/configurator_clients.ts";

/** The clients below a provider (null until created in the browser). */
export const ConfiguratorContext = createContext<ConfiguratorClients | null | undefined>(
  undefined,
);

/** The provider's clients (null until created); throws outside a `ConfiguratorProvider`. */
export function useConfigurator(): ConfiguratorClients | null {
  const value = useContext(ConfiguratorContext);
  if (value === undefined) {
    throw new Error("useConfigurator must be used inside <ConfiguratorProvider>");
  }
  return value;
}
