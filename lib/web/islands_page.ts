/**
 * A full HTML page with islands, for routes that set their own headers (the hosted configurator
 * sets `frame-ancestors` per key, which the shared layout's fixed CSP cannot). The stylesheet is
 * inlined with the nonce, and the island boot goes last.
 */
import { h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { CONFIGURATOR_CSS } from "../client/configurator_styles.ts";
import { IslandCollector } from "./islands.ts";
import { appIslandBuild } from "./islands_build.ts";

/** What a page needs besides its body. */
export interface IslandPageOptions {
  title: string;
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
 * return await islandPage({ title: "Vase", frameAncestors: key.allowedOrigins,
 *   body: (c) => c.island("Configurator", Configurator, props) });
 * ```
 */
export async function islandPage(options: IslandPageOptions): Promise<Response> {
  const build = await appIslandBuild();
  const nonce = crypto.randomUUID().replaceAll("-", "");
  const collector = new IslandCollector(build);
  const body = options.body(collector);
  const html = "<!DOCTYPE html>" + renderToString(
    h(
      "html",
      { lang: "en" },
      h(
        "head",
        null,
        h("meta", { charset: "utf-8" }),
        h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
        h("title", null, options.title),
        h("style", { nonce, dangerouslySetInnerHTML: { __html: PAGE_CSS + CONFIGURATOR_CSS } }),
      ),
      h("body", null, body, collector.boot(nonce)),
    ),
  );
  const ancestors = options.frameAncestors.length ? options.frameAncestors.join(" ") : "'none'";
  return new Response(html, {
    status: options.status ?? 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": [
        "default-src 'self'",
        `script-src 'self' 'nonce-${nonce}'`,
        `style-src 'self' 'nonce-${nonce}'`,
        "img-src 'self' data: blob:",
        ["connect-src 'self'", ...(options.connectSrc ?? [])].join(" "),
        "base-uri 'none'",
        "form-action 'none'",
        "object-src 'none'",
        `frame-ancestors ${ancestors}`,
      ].join("; "),
    },
  });
}

/** The page around a full-height configurator. */
const PAGE_CSS = `
html, body { margin: 0; height: 100%; background: #fff; }
body > .cad-configurator { height: 100vh; border: 0; border-radius: 0; }
.cad-error-page { font: 15px/1.5 system-ui, sans-serif; color: #1d2330; max-width: 560px;
  margin: 12vh auto; padding: 0 24px; }
.cad-error-page h1 { font-size: 20px; margin: 0 0 8px; }
.cad-error-page code { background: #f2f4f7; padding: 1px 5px; border-radius: 4px; }
.cad-error-page p { color: #5b6474; }
`;

/**
 * A plain error page (no scripts) for a configurator that cannot be shown; frameable anywhere so
 * the partner sees the reason inside their iframe. Carries the problem `code`.
 */
export function configuratorErrorPage(
  status: number,
  code: string,
  title: string,
  detail: string,
): Response {
  const html = "<!DOCTYPE html>" + renderToString(
    h(
      "html",
      { lang: "en" },
      h(
        "head",
        null,
        h("meta", { charset: "utf-8" }),
        h("title", null, title),
        h("style", { dangerouslySetInnerHTML: { __html: PAGE_CSS } }),
      ),
      h(
        "body",
        null,
        h(
          "main",
          { class: "cad-error-page", "data-error-code": code },
          h("h1", null, title),
          h("p", null, detail),
          h("p", null, "Error code: ", h("code", null, code)),
        ),
      ),
    ),
  );
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // No scripts at all; only the inline stylesheet above.
      "content-security-policy":
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    },
  });
}
