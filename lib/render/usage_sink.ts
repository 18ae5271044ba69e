/**
 * Where render events are counted, shared by the hub's KV recorder (lib/hub/usage.ts) and a kernel
 * node's Redis relay (lib/render/usage_relay.ts): the sink interface, the flush window both keep,
 * and the UTC day a count belongs to.
 */

/** Counts are written at most this long after the event (one batch, off the request path). */
export const USAGE_FLUSH_MS = 1000;

/** Where render events are counted: this process's KV (UsageRecorder) or, on a kernel node, Redis. */
export interface RenderUsageSink {
  /** Counts one render of a token minted by `keyId` (`cache`: l1, l2, miss or none). */
  recordRender(keyId: string, outcome: string, cache: string): void;
  /** Writes every pending count now. */
  flush(): Promise<void>;
}

const DAY_MS = 86_400_000;
// Every count names its UTC day; remember the current one instead of formatting a Date per call.
let cachedDayStart = NaN;
let cachedDay = "";

/** The UTC day (`YYYY-MM-DD`) of `ms`, the bucket a count goes to. */
export function dayOf(ms: number): string {
  if (!(ms >= cachedDayStart && ms < cachedDayStart + DAY_MS)) {
    cachedDayStart = Math.floor(ms / DAY_MS) * DAY_MS;
    cachedDay = new Date(cachedDayStart).toISOString().slice(0, 10);
  }
  return cachedDay;
}
