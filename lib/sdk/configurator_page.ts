/**
 * The hosted configurator's page, the product half of it: the stylesheet around a full-height
 * configurator (handed to the framework's `islandPage`, which knows no product CSS) and the plain
 * error page shown inside a partner's iframe when the configurator cannot be shown.
 */
import { h } from "preact";
import { CONFIGURATOR_CSS } from "../client/configurator_styles.ts";
import type { CspDirectives } from "../web/csp.ts";
import { documentResponse, documentShell } from "../web/document.ts";

/** The page around a full-height configurator (and its error page). */
const PAGE_CSS = `
html, body { margin: 0; height: 100%; background: #fff; }
body > .cad-configurator { height: 100vh; border: 0; border-radius: 0; }
.cad-error-page { font: 15px/1.5 system-ui, sans-serif; color: #1d2330; max-width: 560px;
  margin: 12vh auto; padding: 0 24px; }
.cad-error-page h1 { font-size: 20px; margin: 0 0 8px; }
.cad-error-page code { background: #f2f4f7; padding: 1px 5px; border-radius: 4px; }
.cad-error-page p { color: #5b6474; }
`;

/** The error page runs no script at all; its one inline stylesheet is allowed as such. */
export const ERROR_PAGE_DIRECTIVES: CspDirectives = {
  "default-src": ["'none'"],
  "style-src": ["'unsafe-inline'"],
  "base-uri": ["'none'"],
  "form-action": ["'none'"],
};

/** The hosted configurator page's whole stylesheet: the page, then the configurator's own. */
export const HOSTED_CONFIGURATOR_CSS = PAGE_CSS + CONFIGURATOR_CSS;

/**
 * A plain error page (no scripts) for a configurator that cannot be shown; frameable anywhere so
 * the partner sees the reason inside their iframe. Carries the problem `code`.
 *
 * @example
 * ```ts
 * configuratorErrorPage(401, "unknown_key", "This configurator cannot be shown", e.message);
 * ```
 */
export function configuratorErrorPage(
  status: number,
  code: string,
  title: string,
  detail: string,
): Response {
  return documentResponse({
    csp: ERROR_PAGE_DIRECTIVES,
    framing: "anyone",
    status,
    headers: { "cache-control": "no-store" },
    render: () =>
      documentShell({
        title,
        css: PAGE_CSS,
        viewport: false,
        body: h(
          "main",
          { class: "cad-error-page", "data-error-code": code },
          h("h1", null, title),
          h("p", null, detail),
          h("p", null, "Error code: ", h("code", null, code)),
        ),
      }),
  });
}
