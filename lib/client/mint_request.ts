/**
 * The browser flow's mint request (spec 3): where it goes and what it sends, in one place for the
 * `SessionClient` and for the embed's early start (lib/client/prefetch.ts), which must send the
 * very same request for a client to adopt its answer.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** The production hub; override `hubBaseUrl` for staging or a self-hosted hub. */
export const DEFAULT_HUB_BASE_URL = "https://hub.example.com";

/** The mint endpoint's path on the hub. */
export const MINT_PATH = "/api/v1/sdk/session-tokens";

/** The mint URL on `hubBaseUrl` (trailing slashes ignored) at `mintPath`. */
export function mintUrl(hubBaseUrl = DEFAULT_HUB_BASE_URL, mintPath = MINT_PATH): string {
  return `${hubBaseUrl.replace(/\/+$/, "")}${mintPath}`;
}

/**
 * The mint's `fetch` options: the keyId and project, no Authorization and no `origin` member (the
 * browser attaches `Origin`, and that is the proof), no cookies.
 */
export function mintInit(
  keyId: string,
  projectKey: string,
  extras: Record<string, string> = {},
): RequestInit & { method: string; body: string } {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...extras, keyId, projectId: projectKey }),
    credentials: "omit",
  };
}
