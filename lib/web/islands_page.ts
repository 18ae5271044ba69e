/**
 * A full HTML page with islands, for routes that set their own framing (the hosted configurator
 * sets `frame-ancestors` per key, which the shared layout's pages cannot). The caller's stylesheet
 * is inlined with the nonce (the framework holds no product CSS), and the island boot goes last;
 * the document, its nonce and its CSP (the island page's table) come from lib/web/document.ts.
 */
import type { Context, Env } from "hono";
import type { VNode } from "preact";
import { ISLAND_PAGE_DIRECTIVES } from "./csp.ts";
import { documentResponse, documentShell } from "./document.ts";
import { IslandCollector } from "./islands.ts";
import { islandBuildOf } from "./islands_build.ts";

/** What a page needs besides its body. */
export interface IslandPageOptions {
  title: string;
  /** The page's `<meta name="description">`. */
  description?: string;
  /** The page's stylesheet, inlined in `<head>` under the CSP nonce. */
  css?: string;
  /** The page body, built with the collector's `island()`. */
  body: (collector: IslandCollector) => VNode;
  /** Origins that may frame the page (`frame-ancestors`); empty means none. */
  frameAncestors: readonly string[];
  /** Extra `connect-src` origins (a separate render service). */
  connectSrc?: readonly string[];
  status?: number;
}

/**
 * Renders the page with its islands and a CSP that allows exactly its own scripts.
 *
 * @example
 * ```ts
 * return await islandPage(ctx, { title: "Vase", css, frameAncestors: key.allowedOrigins,
 *   body: (c) => c.island("Configurator", Configurator, props) });
 * ```
 */
export async function islandPage<E extends Env>(
  c: Context<E>,
  options: IslandPageOptions,
): Promise<Response> {
  const collector = new IslandCollector(await islandBuildOf(c));
  return documentResponse({
    csp: {
      ...ISLAND_PAGE_DIRECTIVES,
      "connect-src": [...ISLAND_PAGE_DIRECTIVES["connect-src"], ...(options.connectSrc ?? [])],
    },
    framing: options.frameAncestors,
    status: options.status,
    headers: { "cache-control": "no-store" },
    render: (nonce) =>
      documentShell({
        title: options.title,
        description: options.description,
        css: options.css,
        nonce,
        body: [options.body(collector), collector.boot(nonce)],
      }),
  });
}
