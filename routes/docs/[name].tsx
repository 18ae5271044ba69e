/**
 * GET /docs/<name> — one of docs/*.md rendered as a page (lib/web/markdown.ts: escaped text, links
 * only to other docs, anchors and the web). An unknown name is a 404 problem.
 */
import type { VNode } from "preact";
import { type DocEntry, listDocs, readDoc } from "@/lib/sdk/docs_pages.ts";
import { AppError } from "@/lib/http/problem.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";
import { SitePage } from "@/components/site/SiteFrame.tsx";
import { DOCS_CSS, SITE_CSS } from "@/components/site/site_styles.ts";

interface DocData {
  entry: DocEntry;
  body: VNode[];
  all: DocEntry[];
}

export const handler: Handlers = {
  async GET(ctx) {
    const name = ctx.req.param("name") ?? "";
    const doc = await readDoc(name);
    if (!doc) throw new AppError("not_found", `There is no doc named "${name}"; see /docs.`);
    return page<DocData>({ ...doc, all: await listDocs() }, doc.entry.title, doc.entry.summary);
  },
};

export default function DocPage({ data, nonce }: PageProps<DocData>) {
  return (
    <>
      <style nonce={nonce} dangerouslySetInnerHTML={{ __html: SITE_CSS + DOCS_CSS }} />
      <SitePage>
        <div class="doc">
          <nav class="doc__side" aria-label="Docs">
            <ul>
              {data.all.map((d) => (
                <li key={d.name}>
                  <a
                    href={`/docs/${d.name}`}
                    aria-current={d.name === data.entry.name ? "page" : undefined}
                  >
                    {d.name}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <article class="doc__body" data-doc={data.entry.name}>{data.body}</article>
        </div>
      </SitePage>
    </>
  );
}
