/**
 * Ready-to-paste snippets for the settings pages: both mint flows for a key, and the embeds of a
 * project (iframe, custom element, React from npm, and the server flow: the partner's backend
 * mints with its secret and hands the token to the page). Every value is escaped for where it
 * lands — HTML attributes are entity-escaped, JavaScript gets JSON string literals, JSX gets
 * expression containers, shell words are single-quoted — so a slug, origin, title or URL can
 * never break out of the snippet.
 *
 * The custom element reads `key-id`, `project`, `hub-url` and `kernel-url`
 * (lib/sdk/embed_element.ts); the hosted page reads `?key=` (routes/configurator/[project]); the
 * npm package `@cad-configurator/sdk` (packages/sdk) exports `Configurator` from its `/react`
 * entry, whose props are the provider's (spec 4.3: `keyId` or `sessionToken`, `projectKey`,
 * `hubBaseUrl`, `baseUrl`, and `onTokenExpired` for the server flow); the mint endpoint reads
 * the bodies of lib/hub/mint_request.ts. tests/settings/embed_snippets_test.ts checks the snippets
 * against those names.
 */

/** Where the snippets point and what they name. */
export interface SnippetTarget {
  /** The hub's public base URL, e.g. `https://hub.example`. */
  baseUrl: string;
  /** The render service's public base URL (default `baseUrl`: hub and kernel in one). */
  kernelUrl?: string;
  keyId: string;
  /** The project slug (empty when the key lists none yet: a placeholder is shown). */
  project: string;
  /** An allowed origin of the key (for the server flow's `origin`). */
  origin: string;
  /** The project's title, for the iframe's accessible name. */
  title?: string;
}

/** Escapes text for a double- or single-quoted HTML attribute value (or element content). */
export function escapeHtmlAttr(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("'", "&#39;")
    .replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * A JavaScript string literal that is also safe inside an HTML `<script>` element: JSON, with
 * `<`, `>`, `&` and the JS-only line terminators U+2028/U+2029 written as escapes.
 */
export function jsString(value: string): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A POSIX shell word: single-quoted, with embedded quotes closed, escaped and reopened. */
export function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Text for a `//` comment: escaped like a string literal's content, so a line break cannot end the
 * comment and `</script>` cannot end an enclosing script element.
 */
function commentText(value: string): string {
  return jsString(value).slice(1, -1);
}

function projectOf(t: SnippetTarget): string {
  return t.project || "your-project-slug";
}

function mintUrl(t: SnippetTarget): string {
  return `${t.baseUrl}/api/v1/sdk/session-tokens`;
}

/** The browser flow (publishable keyId; the browser's Origin header is the proof). */
export function browserFlowSnippet(t: SnippetTarget): string {
  return `// In a page served from ${commentText(t.origin)}
const res = await fetch(${jsString(mintUrl(t))}, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ keyId: ${jsString(t.keyId)}, projectId: ${jsString(projectOf(t))} }),
});
const { token, expiresAt } = await res.json();`;
}

/** The server flow with curl (the secret stays on the partner's server). */
export function serverFlowCurl(t: SnippetTarget, secret = "sdk_" + t.keyId + "_<secret>"): string {
  const body = JSON.stringify({ projectId: projectOf(t), origin: t.origin });
  return `curl -s -X POST ${shellWord(mintUrl(t))} \\
  -H ${shellWord(`Authorization: Bearer ${secret}`)} \\
  -H 'Content-Type: application/json' \\
  -d ${shellWord(body)}`;
}

/** The server flow with fetch, reading the key from the environment. */
export function serverFlowFetch(t: SnippetTarget): string {
  return `// On your server; SDK_KEY=sdk_${
    commentText(t.keyId)
  }_<secret> (never send it to a browser)
const res = await fetch(${jsString(mintUrl(t))}, {
  method: "POST",
  headers: {
    authorization: \`Bearer \${process.env.SDK_KEY}\`,
    "content-type": "application/json",
  },
  body: JSON.stringify({ projectId: ${jsString(projectOf(t))}, origin: ${jsString(t.origin)} }),
});
const { token, expiresAt } = await res.json(); // hand the token to the page`;
}

/** The hosted configurator's URL for the key and project (the iframe's `src`). */
export function configuratorUrl(t: SnippetTarget): string {
  return `${t.baseUrl}/configurator/${encodeURIComponent(projectOf(t))}?key=${
    encodeURIComponent(t.keyId)
  }`;
}

/** The iframe embed of a project. */
export function iframeSnippet(t: SnippetTarget): string {
  const title = t.title ? `${t.title} configurator` : "Configurator";
  return `<iframe src="${escapeHtmlAttr(configuratorUrl(t))}"
  width="100%" height="640" style="border:0" allow="fullscreen"
  title="${escapeHtmlAttr(title)}"></iframe>`;
}

/** The custom-element embed of a project. */
export function customElementSnippet(t: SnippetTarget): string {
  const a = escapeHtmlAttr;
  return `<script type="module" src="${a(`${t.baseUrl}/sdk/v1/embed.js`)}"></script>
<cad-configurator key-id="${a(t.keyId)}" project="${a(projectOf(t))}"
  hub-url="${a(t.baseUrl)}" kernel-url="${a(t.kernelUrl ?? t.baseUrl)}"></cad-configurator>`;
}

/** The npm package the React snippets import. */
export const SDK_PACKAGE = "@cad-configurator/sdk";

/** The React embed: the npm package's `Configurator`, browser flow (the publishable keyId). */
export function reactSnippet(t: SnippetTarget): string {
  return `// npm install ${SDK_PACKAGE} react react-dom
import { Configurator } from "${SDK_PACKAGE}/react";

export function ProjectConfigurator() {
  return (
    <Configurator
      keyId={${jsString(t.keyId)}}
      projectKey={${jsString(projectOf(t))}}
      hubBaseUrl={${jsString(t.baseUrl)}}
      baseUrl={${jsString(t.kernelUrl ?? t.baseUrl)}}
      style={{ height: 600 }}
    />
  );
}
// Your own layout: ConfiguratorProvider (the same props) around Viewer and ParameterForm.`;
}

/**
 * The server flow end to end: the partner's backend mints with the secret key (from its
 * environment) for the page's origin and serves the token; the page passes it to the React
 * `Configurator` and fetches a new one when it expires (the library never mints in this flow).
 */
export function serverFlowEmbedSnippet(t: SnippetTarget): string {
  return `// 1. Your server (Node 18+, Deno, Bun), e.g. behind GET /api/cad-session.
//    SDK_KEY=sdk_${commentText(t.keyId)}_<secret> stays here: never send it to a browser.
export async function cadSessionToken() {
  const res = await fetch(${jsString(mintUrl(t))}, {
    method: "POST",
    headers: {
      authorization: \`Bearer \${process.env.SDK_KEY}\`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ projectId: ${jsString(projectOf(t))}, origin: ${jsString(t.origin)} }),
  });
  if (!res.ok) throw new Error(\`mint failed: \${res.status}\`);
  const { token } = await res.json();
  return token; // answer the page with { token }
}

// 2. Your page on ${commentText(t.origin)} (React, npm install ${SDK_PACKAGE}).
import { useEffect, useState } from "react";
import { Configurator } from "${SDK_PACKAGE}/react";

export function ProjectConfigurator() {
  const [token, setToken] = useState(null);
  const refresh = () =>
    fetch("/api/cad-session").then((r) => r.json()).then(({ token }) => setToken(token));
  useEffect(() => void refresh(), []);
  if (!token) return null;
  return (
    <Configurator
      sessionToken={token}
      projectKey={${jsString(projectOf(t))}}
      hubBaseUrl={${jsString(t.baseUrl)}}
      baseUrl={${jsString(t.kernelUrl ?? t.baseUrl)}}
      onTokenExpired={refresh}
      style={{ height: 600 }}
    />
  );
}`;
}
