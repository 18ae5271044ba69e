/**
 * A storefront shopper's network for the first-model bench: Chromium's own network emulation (the
 * DevTools protocol's `Network.emulateNetworkConditions`) with Lighthouse's desktop figures, 40 ms
 * of round trip and 10 Mbit/s each way. On loopback every request answers in a few milliseconds, so
 * round trips on the first model's path cost nothing there; here each request waits at least the
 * round trip, and each byte the throughput, as on a partner's real site.
 */
import type { BrowserContext, Page } from "playwright-core";

/** Round trip and throughput a page's requests get. */
export interface NetworkConditions {
  /** Least time from a request sent to its response's headers, in ms. */
  latencyMs: number;
  /** Throughput each way, in kbit/s. */
  kbps: number;
}

/** Lighthouse's desktop network: 40 ms round trip, 10 Mbit/s. */
export const DESKTOP_NETWORK: NetworkConditions = { latencyMs: 40, kbps: 10 * 1024 };

/** Applies `conditions` to every request `page` makes from now on (before it navigates). */
export async function emulateNetwork(
  context: BrowserContext,
  page: Page,
  conditions: NetworkConditions,
): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const bytesPerSecond = conditions.kbps * 1024 / 8;
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: conditions.latencyMs,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });
}
