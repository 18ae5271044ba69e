/** GET / — the demo page: the demo key, a live browser-flow mint, and where to go next. */
import { getDemo } from "@/lib/hub/demo_seed.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

interface HomeData {
  keyId: string | null;
  projectSlug: string | null;
  origin: string;
}

export const handler: Handlers = {
  async GET(ctx) {
    const demo = await getDemo(ctx.var.deps.kv);
    const key = demo ? await getSdkKey(ctx.var.deps.kv, demo.keyId) : null;
    const url = new URL(ctx.req.url);
    return page<HomeData>({
      keyId: key?.keyId ?? null,
      projectSlug: key?.allowedProjects[0] ?? null,
      origin: url.origin,
    }, "Demo");
  },
};

export default function Home({ data, nonce }: PageProps<HomeData>) {
  const curl = data.keyId
    ? `curl -s -X POST ${data.origin}/api/v1/sdk/session-tokens \\\n  -H 'Origin: ${data.origin}' -H 'Content-Type: application/json' \\\n  -d '{"keyId":"${data.keyId}","projectId":"${data.projectSlug}"}'`
    : null;
  return (
    <main class="page">
      <header class="hero">
        <h1>CAD Configurator</h1>
        <p>Partner session tokens for an embeddable, parametric CAD configurator.</p>
      </header>
      {data.keyId
        ? (
          <section
            class="card"
            id="demo"
            data-key-id={data.keyId}
            data-project={data.projectSlug ?? ""}
          >
            <h2>Mint a session token from this page</h2>
            <p>
              This page is on an allowed origin of the demo key{" "}
              <code>{data.keyId}</code>, so the browser flow works with the publishable keyId alone:
              the browser's <code>Origin</code> header is the proof.
            </p>
            <button type="button" id="mint">Mint a token</button>
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
            <h3>The same from a terminal</h3>
            <pre>{curl}</pre>
          </section>
        )
        : (
          <section class="card">
            <p>
              No demo key on this instance (SEED_DEMO=false). Create one with{" "}
              <code>deno task hub key create</code>.
            </p>
          </section>
        )}
      <section class="card">
        <h2>Reference</h2>
        <ul>
          <li>
            <a href="/openapi.json">OpenAPI 3.1</a> · <a href="/.well-known/jwks.json">JWKS</a> ·
            {" "}
            <a href="/healthz">healthz</a> · <a href="/readyz">readyz</a> ·{" "}
            <a href="/metrics">metrics</a>
          </li>
        </ul>
      </section>
      <script type="module" src="/demo.js" nonce={nonce}></script>
    </main>
  );
}
