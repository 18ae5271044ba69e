/**
 * Every HTML answer of the framework goes through here: a page under the app's layout
 * (lib/web/router.ts), an island page (lib/web/islands_page.ts) and an app's own documents (the
 * hosted configurator's error page). One place draws the nonce, renders `<!DOCTYPE html>` and the
 * tree, and writes the headers (content type, the page kind's CSP from lib/web/csp.ts, framing),
 * so a page's scripts and its policy cannot disagree.
 */
import { type ComponentChildren, h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { contentSecurityPolicy, type CspDirectives, newNonce } from "./csp.ts";
import { leanResponse } from "../http/lean_response.ts";

/**
 * Who may frame a document: `"nobody"` (`frame-ancestors 'none'` and `X-Frame-Options: DENY` for
 * browsers without CSP 2), a list of origins (`frame-ancestors` only; an empty list is `"nobody"`,
 * header included), or `"anyone"` (no `frame-ancestors`).
 */
export type Framing = "nobody" | "anyone" | readonly string[];

/** What an HTML answer is made of. */
export interface DocumentOptions<P = unknown> {
  /** The whole `<html>` tree, given the nonce its inline scripts and styles carry. */
  render(nonce: string): VNode<P>;
  /** The page kind's CSP table; the nonce goes where it names `NONCE`. */
  csp: CspDirectives;
  framing: Framing;
  /** Response status (default 200). */
  status?: number;
  /** The route's own headers (e.g. `cache-control`); content type, CSP and framing win. */
  headers?: Record<string, string>;
}

/**
 * The HTML response: doctype, the rendered tree and its headers.
 *
 * @example
 * ```ts
 * return documentResponse({
 *   csp: PAGE_DIRECTIVES,
 *   framing: "nobody",
 *   render: (nonce) => documentShell({ title: "Hello", nonce, css, body: h("p", null, "hi") }),
 * });
 * ```
 */
export function documentResponse<P>(options: DocumentOptions<P>): Response {
  const nonce = newNonce();
  const html = "<!DOCTYPE html>" + renderToString(options.render(nonce));
  const framing = Array.isArray(options.framing) && options.framing.length === 0
    ? "nobody"
    : options.framing;
  const csp = contentSecurityPolicy(options.csp, {
    nonce,
    frameAncestors: framing === "anyone" ? undefined : framing === "nobody" ? [] : framing,
  });
  return leanResponse(html, {
    status: options.status ?? 200,
    headers: {
      ...options.headers,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": csp,
      ...(framing === "nobody" ? { "x-frame-options": "DENY" } : {}),
    },
  });
}

/** The parts of a document that has no layout component of its own. */
export interface DocumentShell {
  title: string;
  /** The page's stylesheet, inlined in `<head>` (under `nonce` when given). */
  css?: string;
  /** The nonce of the inline stylesheet (when the policy allows inline styles by nonce). */
  nonce?: string;
  /** A `viewport` meta for small screens (default true). */
  viewport?: boolean;
  /** A `<meta name="description">` (search results, link previews); none when absent. */
  description?: string;
  body: ComponentChildren;
}

/**
 * The `<html>` tree of a page without a layout: charset, viewport, title, description, the site
 * icon, one inline stylesheet, then the body.
 *
 * @example
 * ```ts
 * documentShell({ title: "Vase", css, nonce, body: [main, collector.boot(nonce)] });
 * ```
 */
export function documentShell(shell: DocumentShell) {
  return h(
    "html",
    { lang: "en" },
    h(
      "head",
      null,
      h("meta", { charset: "utf-8" }),
      shell.viewport === false
        ? null
        : h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
      h("title", null, shell.title),
      shell.description ? h("meta", { name: "description", content: shell.description }) : null,
      h("link", { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }),
      h("link", { rel: "icon", href: "/favicon.ico", sizes: "16x16 32x32 48x48" }),
      h("style", { nonce: shell.nonce, dangerouslySetInnerHTML: { __html: shell.css ?? "" } }),
    ),
    h("body", null, shell.body),
  );
}
