/** The public pages' top bar and footer (the demo page, the docs). */
import type { ComponentChildren } from "preact";

/** Links every public page offers: the live demo, the docs, signing up and in. */
export function SiteTop() {
  return (
    <header class="site-top">
      <a class="skip" href="#main">Skip to content</a>
      <div class="site-top__in">
        <a class="site-brand" href="/">
          <span class="site-brand__mark" aria-hidden="true" />CAD Configurator
        </a>
        <nav class="site-nav" aria-label="Site">
          <a class="site-nav__wide" href="/#examples">Examples</a>
          <a href="/docs">Docs</a>
          <a href="/auth/signin">Sign in</a>
          <a class="btn btn--small" href="/auth/signup">Sign up</a>
        </nav>
      </div>
    </header>
  );
}

/** The footer: the machine-readable endpoints. */
export function SiteFoot() {
  return (
    <footer class="site-foot">
      <div class="site-foot__in">
        <span>Reference:</span>
        <a href="/openapi.json">OpenAPI 3.1</a>
        <a href="/.well-known/jwks.json">JWKS</a>
        <a href="/healthz">healthz</a>
        <a href="/readyz">readyz</a>
        <a href="/metrics">metrics</a>
      </div>
    </footer>
  );
}

/** A public page: top bar, `children` in the main column, footer. */
export function SitePage({ children }: { children: ComponentChildren }) {
  return (
    <>
      <SiteTop />
      <main class="site-main" id="main" tabIndex={-1}>{children}</main>
      <SiteFoot />
    </>
  );
}
