/** `useSession()` for React: the token status (spec 3) and the session's actions. */
import { useCallback } from "react";
import type { SessionClient, SessionStatus } from "../../../../lib/client/session_client.ts";
import { useConfigurator } from "./context.ts";
import { useSignalValue } from "./use_signal_value.ts";

/** What `useSession` gives. */
export interface UseSession {
  /** `loading`, `ready`, `error` or `provided` (spec 3). */
  tokenStatus: SessionStatus;
  /** A browser-flow mint is in flight while a valid token is held. */
  refreshing: boolean;
  /** Browser flow: mints a new token now. */
  refreshSessionToken: () => Promise<string>;
  /** Server flow: hands over a new token from the partner's backend. */
  setSessionToken: (token: string) => void;
  /** The session client (null until the provider created it). */
  session: SessionClient | null;
}

const LOADING: SessionStatus = { state: "loading" };

/** The provider's token status and session actions. */
export function useSession(): UseSession {
  const clients = useConfigurator();
  const session = clients?.session ?? null;
  const tokenStatus = useSignalValue(session?.status, LOADING);
  const refreshing = useSignalValue(session?.refreshing, false);
  const refreshSessionToken = useCallback(
    () =>
      session
        ? session.refreshSessionToken()
        : Promise.reject(new Error("the configurator is not mounted yet")),
    [session],
  );
  const setSessionToken = useCallback((token: string) => session?.setSessionToken(token), [
    session,
  ]);
  return { tokenStatus, refreshing, refreshSessionToken, setSessionToken, session };
}
