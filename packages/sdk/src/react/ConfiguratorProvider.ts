/**
 * `ConfiguratorProvider` for React (spec 4.3 props): creates the session, render and Python
 * clients of one configurator in an effect and disposes them in its cleanup, so StrictMode's
 * mount–unmount–mount leaves exactly one live set, and server rendering creates nothing.
 */
import { createElement, type ReactNode, useEffect, useRef, useState } from "react";
import {
  type ConfiguratorClientOptions,
  type ConfiguratorClients,
  createConfiguratorClients,
} from "../../../../lib/client/configurator_clients.ts";
import { ConfiguratorContext } from "./context.ts";

/** Props of `ConfiguratorProvider` (spec 4.3, plus the server flow's expiry callback). */
export interface ConfiguratorProviderProps extends ConfiguratorClientOptions {
  children?: ReactNode;
}

/** Provides a session and a renderer for `projectKey` to its children. */
export function ConfiguratorProvider(props: ConfiguratorProviderProps): ReactNode {
  const [clients, setClients] = useState<ConfiguratorClients | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const serverFlow = Boolean(props.sessionToken);
  useEffect(() => {
    const created = createConfiguratorClients({
      keyId: latest.current.keyId,
      sessionToken: latest.current.sessionToken,
      projectKey: latest.current.projectKey,
      hubBaseUrl: latest.current.hubBaseUrl,
      baseUrl: latest.current.baseUrl,
      onTokenExpired: (detail) => latest.current.onTokenExpired?.(detail),
    });
    setClients(created);
    return () => {
      created.dispose();
      setClients((current) => current === created ? null : current);
    };
  }, [props.keyId, serverFlow, props.projectKey, props.hubBaseUrl, props.baseUrl]);
  // Server flow: a new token from the partner's backend replaces the old one in place.
  useEffect(() => {
    if (!clients || !props.sessionToken || clients.session.flow !== "server") return;
    const status = clients.session.status.peek();
    if (status.state !== "provided" || status.token !== props.sessionToken) {
      clients.session.setSessionToken(props.sessionToken);
    }
  }, [props.sessionToken, clients]);
  return createElement(ConfiguratorContext.Provider, { value: clients }, props.children);
}
