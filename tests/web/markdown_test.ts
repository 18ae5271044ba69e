/** Markdown to Preact (lib/web/markdown.ts) and the docs pages served from it (/docs). */
import assert from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { headingId, renderMarkdown } from "@/lib/web/markdown.ts";
import { docLink, listDocs } from "@/lib/sdk/docs_pages.ts";
import { createTestApp } from "../_helpers/app.ts";

const html = (md: string) =>
  renderToString(h("div", null, renderMarkdown(md, { link: docLink })))
    .replace(/^<div>|<\/div>$/g, "");

Deno.test("markdown - the docs' subset renders as elements", () => {
  const table: Array<[string, string]> = [
    ["# Hi `x`", '<h1 id="hi-x">Hi <code>x</code></h1>'],
    [
      "a **b** *c* _d_ snake_case_name",
      "<p>a <strong>b</strong> <em>c</em> <em>d</em> snake_case_name</p>",
    ],
    [
      "```ts\nconst a = 1 < 2;\n```",
      '<pre tabindex="0"><code class="language-ts">const a = 1 &lt; 2;</code></pre>',
    ],
    [
      "| a | b |\n| --- | --- |\n| `x\\|y` | 2 |",
      '<div class="md-table" tabindex="0"><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td><code>x|y</code></td><td>2</td></tr></tbody></table></div>',
    ],
    [
      "- one\n  more\n  - nested\n- two",
      "<ul><li>one\nmore<ul><li>nested</li></ul></li><li>two</li></ul>",
    ],
    ["1. a\n2. b", "<ol><li>a</li><li>b</li></ol>"],
    ["text\n304. not a list", "<p>text\n304. not a list</p>"],
    [
      "see [tokens](tokens.md#claims) and [api](./api.md)",
      '<p>see <a href="/docs/tokens#claims">tokens</a> and <a href="/docs/api">api</a></p>',
    ],
    [
      "<https://example.com/x>",
      '<p><a href="https://example.com/x" rel="noopener noreferrer">https://example.com/x</a></p>',
    ],
    ["> quoted", "<blockquote><p>quoted</p></blockquote>"],
  ];
  for (const [md, want] of table) assert.equal(html(md), want, md);
});

Deno.test("markdown - no markup or script URL gets through", () => {
  const table: Array<[string, string]> = [
    ["<script>alert(1)</script>", "<p>&lt;script>alert(1)&lt;/script></p>"],
    ['<img src=x onerror="alert(1)">', "<p>&lt;img src=x onerror=&quot;alert(1)&quot;></p>"],
    ["[x](javascript:alert(1))", "<p><span>x</span></p>"],
    ["[x](../lib/hub/mint.ts)", "<p><span>x</span></p>"],
    ["[x](data:text/html,hi)", "<p><span>x</span></p>"],
    ['# a"><script>', '<h1 id="ascript">a&quot;>&lt;script></h1>'],
  ];
  for (const [md, want] of table) assert.equal(html(md), want, md);
  assert.equal(
    headingId("Revocation (`lib/store/revocations.ts`)"),
    "revocation-libstorerevocationsts",
  );
});

Deno.test("docs - every doc is a page; links between them resolve; unknown names are 404s", async () => {
  const app = await createTestApp({});
  try {
    const docs = await listDocs();
    assert.ok(docs.some((d) => d.name === "embedding"));
    const index = await (await app.request("/docs")).text();
    for (const d of docs) {
      assert.ok(index.includes(`href="/docs/${d.name}"`), d.name);
      const res = await app.request(`/docs/${d.name}`);
      assert.equal(res.status, 200, d.name);
      const body = await res.text();
      assert.match(body, new RegExp(`data-doc="${d.name}"`));
      for (const [, target] of body.matchAll(/href="\/docs\/([a-z0-9_-]+)/g)) {
        assert.ok(docs.some((x) => x.name === target), `${d.name} links to a doc: ${target}`);
      }
    }
    for (const path of ["/docs/nope", "/docs/..%2FREADME", "/docs/API"]) {
      const res = await app.request(path);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).code, "not_found");
    }
  } finally {
    await app.close();
  }
});

Deno.test("docs - an outline is made once per file version: an unchanged doc is not read again, an edited one is", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = new URL(`file://${dir}/`);
    await Deno.writeTextFile(`${dir}/guide.md`, "# Guide\n\nFirst words.\n");
    const [first] = await listDocs(url);
    assert.deepEqual(first, { name: "guide", title: "Guide", summary: "First words." });
    const [again] = await listDocs(url);
    assert.equal(again, first, "the outline made before");
    await Deno.writeTextFile(`${dir}/guide.md`, "# Guide, revised\n\nOther words here.\n");
    const [edited] = await listDocs(url);
    assert.deepEqual(edited, {
      name: "guide",
      title: "Guide, revised",
      summary: "Other words here.",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
