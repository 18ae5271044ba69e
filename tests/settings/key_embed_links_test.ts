/**
 * The page that shows a key once links to the embed snippets of each project the key allows; the
 * link opens the project page with that key chosen, at the Embed section, where the iframe,
 * custom element, React (npm) and server-flow snippets name the key.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../_helpers/app.ts";
import { setUpPartner } from "./_setup.ts";

/** The hrefs of the key-created page's embed links. */
function embedLinks(html: string): string[] {
  const start = html.indexOf('id="embed-links"');
  assert.ok(start >= 0, "an embed-links card");
  const card = html.slice(start, html.indexOf("</section>", start));
  return [...card.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replaceAll("&amp;", "&"));
}

Deno.test("key embed links - the created and rolled pages link to each project's embeds", async (t) => {
  const app = await createTestApp();
  try {
    const a = await setUpPartner(app.url, "Alpha", app.fetch);
    const second = await a.client.post("/settings/projects", { title: "Second", slug: "second" });
    await second.body?.cancel();
    await a.client.html("/settings/keys");
    const res = await a.client.post("/settings/keys", {
      label: "two projects",
      origins: "https://shop.example",
      projects: [a.project, "second"],
      defaultTtl: "30",
      maxTtl: "120",
      budget: "",
    });
    const html = await res.text();
    assert.equal(res.status, 200, html.slice(0, 300));
    const keyId = /id="key-plaintext">sdk_([a-z2-7]+)_/.exec(html)?.[1];
    assert.ok(keyId);

    await t.step("one link per allowed project, with the key chosen", () => {
      assert.deepEqual(
        embedLinks(html).sort(),
        [
          `/settings/projects/${a.project}?key=${keyId}#embed`,
          `/settings/projects/second?key=${keyId}#embed`,
        ].sort(),
      );
    });

    await t.step("the link shows every embed snippet for that key", async () => {
      const page = await a.client.html(embedLinks(html)[0].replace(/#embed$/, ""));
      assert.match(page, /<section class="card" id="embed">/);
      assert.match(page, new RegExp(`<option value="${keyId}" selected>`));
      for (const id of ["embed-iframe", "embed-element", "embed-react", "embed-server"]) {
        const snippet = new RegExp(`<pre id="${id}">([^<]*)</pre>`).exec(page)?.[1];
        assert.ok(snippet, `snippet ${id}`);
        if (id !== "embed-server") assert.ok(snippet.includes(keyId), `${id} names the key`);
      }
      const server = /<pre id="embed-server">([^<]*)<\/pre>/.exec(page)![1];
      assert.ok(
        server.includes(`sdk_${keyId}_&lt;secret>`),
        "the server flow names the key's secret",
      );
      assert.ok(server.includes("https://shop.example"), "and binds the key's origin");
      assert.ok(!server.includes(/id="key-plaintext">sdk_[a-z2-7]+_([a-z2-7]+)/.exec(html)![1]));
    });

    await t.step("the rolled page links the same way", async () => {
      await a.client.html(`/settings/keys/${keyId}`);
      const rolled = await a.client.post(`/settings/keys/${keyId}/roll`, { grace: "0" });
      const page = await rolled.text();
      assert.equal(rolled.status, 200, page.slice(0, 300));
      assert.equal(embedLinks(page).length, 2);
    });
  } finally {
    await app.close();
  }
});
