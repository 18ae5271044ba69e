/**
 * Ready-to-paste snippets for the settings pages: both mint flows for a key, and the embeds of a
 * project (iframe, custom element, Preact/React). Values are JSON-quoted where they land in code,
 * so a label or slug can never break out of the snippet.
 */

/** Where the snippets point and what they name. */
export interface SnippetTarget {
  /** The hub's public base URL, e.g. `https://hub.example`. */
  baseUrl: string;
  keyId: string;
  project: string;
  /** An allowed origin of the key (for the server flow's `origin`). */
  origin: string;
}

/** The browser flow (publishable keyId; the browser's Origin header is the proof). */
export function browserFlowSnippet(t: SnippetTarget): string {
  return `// In a page served from ${t.origin}
const res = await fetch(${JSON.stringify(`${t.baseUrl}/api/v1/sdk/session-tokens`)}, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ keyId: ${JSON.stringify(t.keyId)}, projectId: ${
    JSON.stringify(t.project)
  } }),
});
const { token, expiresAt } = await res.json();`;
}

/** The server flow with curl (the secret stays on the partner's server). */
export function serverFlowCurl(t: SnippetTarget, secret = "sdk_" + t.keyId + "_<secret>"): string {
  const body = JSON.stringify({ projectId: t.project, origin: t.origin });
  return `curl -s -X POST ${t.baseUrl}/api/v1/sdk/session-tokens \\
  -H "Authorization: Bearer ${secret}" \\
  -H "Content-Type: application/json" \\
  -d '${body}'`;
}

/** The server flow with fetch, reading the key from the environment. */
export function serverFlowFetch(t: SnippetTarget): string {
  return `// On your server; SDK_KEY=sdk_${t.keyId}_<secret> (never send it to a browser)
const res = await fetch(${JSON.stringify(`${t.baseUrl}/api/v1/sdk/session-tokens`)}, {
  method: "POST",
  headers: {
    authorization: \`Bearer \${process.env.SDK_KEY}\`,
    "content-type": "application/json",
  },
  body: JSON.stringify({ projectId: ${JSON.stringify(t.project)}, origin: ${
    JSON.stringify(t.origin)
  } }),
});
const { token, expiresAt } = await res.json(); // hand the token to the page`;
}

/** The iframe embed of a project. */
export function iframeSnippet(t: SnippetTarget): string {
  const src = `${t.baseUrl}/configurator/${encodeURIComponent(t.project)}?key=${t.keyId}`;
  return `<iframe src="${src}"
  width="100%" height="640" style="border:0" allow="fullscreen"
  title="Configurator"></iframe>`;
}

/** The custom-element embed of a project. */
export function customElementSnippet(t: SnippetTarget): string {
  return `<script type="module" src="${t.baseUrl}/sdk/v1/embed.js"></script>
<cad-configurator key-id="${t.keyId}" project="${t.project}"></cad-configurator>`;
}

/** The Preact/React embed (the custom element inside a component). */
export function reactSnippet(t: SnippetTarget): string {
  return `// Preact or React: load ${t.baseUrl}/sdk/v1/embed.js once (e.g. in index.html), then
export function Configurator() {
  return <cad-configurator key-id=${JSON.stringify(t.keyId)} project=${
    JSON.stringify(t.project)
  } />;
}`;
}
