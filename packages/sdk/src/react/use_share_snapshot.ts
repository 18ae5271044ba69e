/**
 * Share links and cart snapshots for React layouts built from the hooks (the whole `Configurator`
 * has them on its ref): `useShareUrl(values)` is the link of the values your layout holds,
 * `useSnapshot()` a function that makes the PNG of what the provider last drew.
 */
import { useCallback, useMemo } from "react";
import { createShareUrl } from "../../../../lib/client/share_link.ts";
import {
  renderSnapshot,
  settledResult,
  SnapshotError,
  type SnapshotOptions,
} from "../../../../lib/client/snapshot.ts";
import { useConfigurator } from "./context.ts";
import { useSignalValue } from "./use_signal_value.ts";

/**
 * The share link of `values` on `baseUrl` (default: this page), or null until the project loaded
 * (and during server rendering).
 */
export function useShareUrl(values: Record<string, unknown>, baseUrl?: string): string | null {
  const clients = useConfigurator();
  const project = useSignalValue(clients?.project, null);
  return useMemo(() => {
    if (!project || typeof document === "undefined") return null;
    return createShareUrl(project, values, baseUrl ?? globalThis.location.href);
  }, [project, values, baseUrl]);
}

/** A function that makes a PNG of the provider's current scene (lib/client/snapshot.ts). */
export function useSnapshot(): (options?: SnapshotOptions) => Promise<Blob> {
  const clients = useConfigurator();
  const renderer = clients?.renderer;
  return useCallback(async (options?: SnapshotOptions) => {
    if (!renderer) throw new SnapshotError("no_scene", "the configurator is not mounted yet");
    return await renderSnapshot(await settledResult(renderer.state), options);
  }, [renderer]);
}
