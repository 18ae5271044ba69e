/**
 * Reads a `@preact/signals-core` signal of the framework-free core as React state, through
 * `useSyncExternalStore` (tear-free under concurrent rendering, safe in server rendering).
 */
import { useCallback, useSyncExternalStore } from "react";
import type { ReadonlySignal } from "@preact/signals-core";

/** The current value of `source` (or `fallback` while there is none); re-renders on change. */
export function useSignalValue<T>(source: ReadonlySignal<T> | undefined, fallback: T): T {
  const subscribe = useCallback(
    (notify: () => void) => source ? source.subscribe(() => notify()) : () => {},
    [source],
  );
  const read = () => source ? source.peek() : fallback;
  return useSyncExternalStore(subscribe, read, read);
}
