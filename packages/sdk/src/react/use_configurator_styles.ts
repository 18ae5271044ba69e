/**
 * Puts the configurator's stylesheet (lib/client/configurator_styles.ts) into the document once:
 * a marked `<style>` in `<head>`, found again by later components, StrictMode's second mount and
 * other React roots, so the CSS is never injected twice. Nothing runs at import or on the server.
 */
import { useInsertionEffect } from "react";
import { CONFIGURATOR_CSS } from "../../../../lib/client/configurator_styles.ts";

/** The attribute that marks the injected `<style>`. */
export const STYLE_MARKER = "data-cad-configurator-styles";

/** Adds the stylesheet to `doc` unless it is there already. */
export function injectConfiguratorStyles(doc: Document = document): void {
  if (doc.head.querySelector(`style[${STYLE_MARKER}]`)) return;
  const style = doc.createElement("style");
  style.setAttribute(STYLE_MARKER, "");
  style.textContent = CONFIGURATOR_CSS;
  doc.head.append(style);
}

/** Injects the stylesheet before the component's first layout (once per document). */
export function useConfiguratorStyles(): void {
  useInsertionEffect(() => injectConfiguratorStyles(), []);
}
