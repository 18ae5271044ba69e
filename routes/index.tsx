/**
 * GET / — the demo page: a live configurator of a demo project (the Configurator island, minting
 * with the demo key from this page's own origin), the example gallery (`?project=<slug>` puts an
 * example on the stage), how to embed it, a browser-flow mint shown step by step, and the way to
 * sign up, sign in and read the docs.
 */
import type { VNode } from "preact";
import { loadDemoPage } from "@/lib/hub/demo_page.ts";
import type { DemoPageInfo } from "@/lib/hub/demo_page.ts";
import { listDocs } from "@/lib/sdk/docs_pages.ts";
import { CONFIGURATOR_CSS } from "@/lib/client/configurator_styles.ts";
import { islandPage } from "@/lib/web/islands_page.ts";
import type { Handlers } from "@/lib/app/context.ts";
import Configurator from "@/islands/Configurator.tsx";
import { SitePage } from "@/components/site/SiteFrame.tsx";
import { HOME_CSS, SITE_CSS } from "@/components/site/site_styles.ts";

export const handler: Handlers = {
  async GET(ctx) {
    const { deps } = ctx.var;
    const origin = new URL(ctx.req.url).origin;
    const demo = deps.hub
      ? await loadDemoPage(deps.kv, deps.hub.keys, origin, ctx.req.query("project") ?? null)
      : null;
    const docs = await listDocs();
    // A separate render service (ROLE=kernel elsewhere) is configured as KERNEL_URL.
    const { kernelUrl, publicUrl } = deps.config;
    const separateKernel = new URL(kernelUrl).origin !== new URL(publicUrl).origin;
    const baseUrl = separateKernel ? new URL(kernelUrl).origin : origin;
    return await islandPage(ctx, {
      title: demo?.selected ? `${demo.selected.title} · CAD Configurator` : "CAD Configurator",
      description: "A live parametric CAD configurator to put on your storefront: change a value " +
        "and the part is rendered; examples, two-tag embedding, sign-up and the docs.",
      css: SITE_CSS + CONFIGURATOR_CSS + HOME_CSS,
      frameAncestors: [],
      connectSrc: separateKernel ? [baseUrl] : [],
      // The island is made here, before the boot script: the collector lists islands as they are
      // created, and the page's components render only after boot() has written its list.
      body: (islands) => {
        const stage = demo?.selected && !demo.problem
          ? islands.island("Configurator", Configurator, {
            keyId: demo.keyId,
            projectKey: demo.selected.slug,
            hubBaseUrl: origin,
            baseUrl,
            compact: true,
            title: demo.selected.title,
            ...(demo.schema ? { schema: demo.schema } : {}),
          })
          : null;
        return (
          <SitePage>
            <section class="hero">
              <div>
                <h1>CAD Configurator</h1>
                <p>
                  Parametric 3D products your customers shape on your own storefront. The one below
                  is live: change a value and the hub renders the part.
                </p>
              </div>
              <div class="hero__cta">
                <a class="btn" href="/auth/signup">Create an account</a>
                <a class="btn btn--ghost" href="/docs/embedding">Embedding guide</a>
              </div>
            </section>
            {demo
              ? <Stage demo={demo} origin={origin} configurator={stage} />
              : (
                <div class="notice" role="status">
                  No demo on this instance (<code>SEED_DEMO=false</code>, or it serves only
                  renders). Create a partner and a key with <code>deno task hub key create</code>.
                </div>
              )}
            {demo && <Gallery demo={demo} />}
            {demo && <Embed demo={demo} origin={origin} />}
            <section class="section" id="docs">
              <h2>Documentation</h2>
              <p class="sub">The docs of this checkout, served by this server.</p>
              <ul class="docs-list">
                {docs.map((d) => (
                  <li key={d.name}>
                    <a href={`/docs/${d.name}`}>
                      <strong>{d.title}</strong>
                      <span>{d.summary}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </section>
            <script type="module" src="/demo.js"></script>
          </SitePage>
        );
      },
    });
  },
};

function Stage(
  { demo, origin, configurator }: {
    demo: DemoPageInfo;
    origin: string;
    configurator: VNode | null;
  },
) {
  const selected = demo.selected;
  return (
    <section class="live" id="live" aria-label="Live configurator">
      <div class="live__head">
        <h2>{selected?.title ?? "Demo"}</h2>
        {selected?.mode === "python" && <span class="tag">Python design</span>}
        <p>{selected?.description}</p>
      </div>
      {!demo.originAllowed && (
        <div class="notice notice--stage" role="alert" data-error-code="origin_not_allowed">
          This page is open at{" "}
          <code>{origin}</code>, which is not an allowed origin of the demo key, so it cannot start
          a session. Open it at the address <code>deno task start</code>{" "}
          printed, or add this origin to the key.
        </div>
      )}
      {!configurator
        ? (
          <div
            class="notice notice--stage"
            role="alert"
            data-error-code={demo.problem?.code ?? ""}
          >
            The demo cannot be shown: {demo.problem?.detail} (<code>{demo.problem?.code}</code>)
          </div>
        )
        : <div class="live__stage">{configurator}</div>}
      <p class="live__note">
        Demo key{" "}
        <code>{demo.keyId}</code>: this page mints its session token with the publishable key id
        alone (browser flow): its origin is on the key.
      </p>
    </section>
  );
}

function Gallery({ demo }: { demo: DemoPageInfo }) {
  return (
    <section class="section" id="examples">
      <h2>Examples</h2>
      <p class="sub">
        Each is a project in{" "}
        <code>examples/projects/</code>, published for the demo partner. Open one to put it on the
        stage.
      </p>
      <ul class="gallery">
        {demo.projects.map((p) => (
          <li key={p.slug}>
            <a
              class="gallery__card"
              href={`/?project=${encodeURIComponent(p.slug)}#live`}
              aria-current={p.slug === demo.selected?.slug ? "true" : undefined}
              data-project={p.slug}
            >
              <span class="gallery__title">
                {p.title}
                {p.mode === "python" && <span class="tag">Python</span>}
              </span>
              <span class="gallery__desc">{p.description}</span>
              <span class="gallery__open">
                {p.slug === demo.selected?.slug ? "On the stage" : "Open live →"}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Embed({ demo, origin }: { demo: DemoPageInfo; origin: string }) {
  const project = demo.selected?.slug ?? "";
  const snippet = `<script type="module" src="${origin}/sdk/v1/embed.js"></script>\n` +
    `<cad-configurator key-id="${demo.keyId}" project="${project}"\n  hub-url="${origin}"></cad-configurator>`;
  const curl = `curl -s -X POST ${origin}/api/v1/sdk/session-tokens \\\n` +
    `  -H 'Origin: ${origin}' -H 'Content-Type: application/json' \\\n` +
    `  -d '{"keyId":"${demo.keyId}","projectId":"${project}"}'`;
  return (
    <section class="section" id="embed">
      <h2>Put it on your storefront</h2>
      <p class="sub">
        Sign up, create a key whose allowed origins are your site's, publish your project, then
        paste two tags. Details: <a href="/docs/embedding">embedding</a>,{" "}
        <a href="/docs/settings">hosted settings</a>, <a href="/docs/security">security</a>.
      </p>
      <div class="cards">
        <div class="card">
          <h3>Two tags on a product page</h3>
          <p>
            The custom element mints its own session tokens from its page's origin. With the demo
            key this works on the example storefront (<code>examples/storefront/serve.ts</code>, see
            the README).
          </p>
          <pre tabIndex={0}>{snippet}</pre>
          <ol class="steps">
            <li>
              <a href="/auth/signup">Sign up</a> (or{" "}
              <a href="/auth/signin">sign in</a>) for the hosted settings.
            </li>
            <li>Create an SDK key listing your storefront's origin.</li>
            <li>Swap in your key id and project slug.</li>
          </ol>
        </div>
        <div class="card" id="demo" data-key-id={demo.keyId} data-project={project}>
          <h3>Mint a session token from this page</h3>
          <p>
            What the configurator above did: this page is on an allowed origin of the demo key, so
            the browser flow works with the publishable keyId alone: the browser's{" "}
            <code>Origin</code> header is the proof.
          </p>
          <button type="button" class="btn" id="mint">Mint a token</button>
          <dl class="status">
            <dt>Status</dt>
            <dd id="status" data-status="idle">idle</dd>
            <dt>Expires</dt>
            <dd id="expires">—</dd>
            <dt>Claims</dt>
            <dd>
              <pre id="claims">—</pre>
            </dd>
          </dl>
          <p>The same from a terminal:</p>
          <pre tabIndex={0}>{curl}</pre>
        </div>
      </div>
    </section>
  );
}
