/**
 * How `<cad-configurator>` reads the attributes its clients start from, in one place for the
 * element (lib/sdk/configurator_element.ts) and for the requests the embed's stable module starts
 * before the element's configurator has arrived (lib/sdk/early_requests.ts): both must ask for the
 * same token and project.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** What the element's clients are created from. */
export interface EmbedClientAttributes {
  /** `key-id`: the publishable keyId (browser flow). */
  keyId?: string;
  /** `session-token`: a token from the partner's backend (server flow). */
  sessionToken?: string;
  /** `project`: the project slug. */
  projectKey: string;
  /** `hub-url`, else the origin the element's script came from. */
  hubBaseUrl: string;
  /** `kernel-url`, else the hub. */
  baseUrl: string;
}

/** The client attributes of `element`, whose script was loaded from `scriptOrigin`. */
export function embedClientAttributes(
  element: Element,
  scriptOrigin: string,
): EmbedClientAttributes {
  const hubBaseUrl = element.getAttribute("hub-url") ?? scriptOrigin;
  return {
    keyId: element.getAttribute("key-id") ?? undefined,
    sessionToken: element.getAttribute("session-token") ?? undefined,
    projectKey: element.getAttribute("project") ?? "",
    hubBaseUrl,
    baseUrl: element.getAttribute("kernel-url") ?? hubBaseUrl,
  };
}
