/**
 * Work that can wait for an idle moment of the page: `requestIdleCallback` where the browser has
 * it (Safari has not), else a timer after the current task.
 *
 * Runs in browsers: no Deno APIs here.
 */

/**
 * Runs `task` when the page is idle, at the latest after `timeoutMs`; returns a cancel.
 *
 * @example
 * ```ts
 * const cancel = whenIdle(() => makeView(), 100);
 * ```
 */
export function whenIdle(task: () => void, timeoutMs: number): () => void {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback(() => task(), { timeout: timeoutMs });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(task, 0);
  return () => clearTimeout(id);
}
