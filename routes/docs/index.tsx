/** GET /docs — the repository's docs (docs/*.md), listed; each is a page at /docs/<name>. */
import { type DocEntry, listDocs } from "@/lib/sdk/docs_pages.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";
import { SitePage } from "@/components/site/SiteFrame.tsx";
import { DOCS_CSS, HOME_CSS, SITE_CSS } from "@/components/site/site_styles.ts";

export const handler: Handlers = {
  async GET() {
    return page<DocEntry[]>(
      await listDocs(),
      "Docs",
      "The CAD Configurator's documentation: embedding, the hosted settings, the API, designs and security.",
    );
  },
};

export default function DocsIndex({ data, nonce }: PageProps<DocEntry[]>) {
  return (
    <>
      <style nonce={nonce} dangerouslySetInnerHTML={{ __html: SITE_CSS + HOME_CSS + DOCS_CSS }} />
      <SitePage>
        <section class="doc-index">
          <h1>Documentation</h1>
          <p>
            The <code>docs/</code> folder of this checkout. Start with{" "}
            <a href="/docs/embedding">embedding</a> to put a configurator on your site.
          </p>
          <ul class="docs-list">
            {data.map((d) => (
              <li key={d.name}>
                <a href={`/docs/${d.name}`}>
                  <strong>{d.title}</strong>
                  <span>{d.summary}</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      </SitePage>
    </>
  );
}
