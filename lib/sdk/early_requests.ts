/**
 * The embed's early requests: for each `<cad-configurator>` already in the page on the browser
 * flow, the token mint and the project request its clients will send first, sent before the
 * element's code has arrived (the stable `embed.js` runs this inline, lib/sdk/bundle_route.ts),
 * so that both are answered while the element's bundle downloads. The element adopts their
 * answers (lib/client/prefetch.ts).
 *
 * Runs in browsers: no Deno APIs here.
 */
import { mintInit, mintUrl } from "../client/mint_request.ts";
import { prefetch } from "../client/prefetch.ts";
import { projectInit, projectUrl } from "../client/project_request.ts";
import { embedClientAttributes } from "./embed_attributes.ts";

/**
 * Starts the early requests of every browser-flow `<cad-configurator>` in `root` (whose script
 * came from `scriptOrigin`), with `send`; returns how many elements it started them for.
 */
export function startEarlyRequests(
  root: Pick<ParentNode, "querySelectorAll">,
  scriptOrigin: string,
  send: typeof fetch = fetch,
): number {
  let started = 0;
  for (const element of root.querySelectorAll("cad-configurator")) {
    const { keyId, sessionToken, projectKey, hubBaseUrl, baseUrl } = embedClientAttributes(
      element,
      scriptOrigin,
    );
    if (!keyId || sessionToken !== undefined || !projectKey) continue;
    prefetch(mintUrl(hubBaseUrl), mintInit(keyId, projectKey), send);
    prefetch(projectUrl(baseUrl, projectKey, undefined, { key: keyId }), projectInit(), send);
    started++;
  }
  return started;
}
