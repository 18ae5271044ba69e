/**
 * The settings' embed snippets: they name the attributes the embed really reads, and hostile
 * values (titles, origins, slugs, URLs) stay values — checked by decoding them back the way an
 * HTML parser, a JavaScript engine and a real shell would.
 */
import assert from "node:assert/strict";
import {
  browserFlowSnippet,
  configuratorUrl,
  customElementSnippet,
  escapeHtmlAttr,
  iframeSnippet,
  jsString,
  reactSnippet,
  serverFlowCurl,
  serverFlowFetch,
  shellWord,
  type SnippetTarget,
} from "@/lib/hub/embed_snippets.ts";

const PLAIN: SnippetTarget = {
  baseUrl: "https://hub.example",
  kernelUrl: "https://render.example",
  keyId: "kaaaaaaaaaaaaaaaaaaaa",
  project: "wall-bracket",
  origin: "https://shop.example",
  title: "Wall bracket",
};

const HOSTILE = `"'><script>alert(1)</script>&amp;\u2028\n$(id)\`id\``;

const EVIL: SnippetTarget = {
  baseUrl: `https://hub.example/"><img src=x onerror=alert(1)>`,
  kernelUrl: `https://render.example/'onload='alert(2)`,
  keyId: `k"><b>`,
  project: `bracket"><script>alert(3)</script>`,
  origin: `https://shop.example\n</script><script>alert(4)</script>`,
  title: HOSTILE,
};

/** The attributes of the first `<tag …>` in `html`, decoded as an HTML parser would. */
function attributesOf(html: string, tag: string): Record<string, string> {
  const start = html.indexOf(`<${tag}`);
  assert.ok(start >= 0, `<${tag}> in ${html}`);
  const open = html.slice(start, html.indexOf(">", start) + 1);
  const attrs: Record<string, string> = {};
  for (const m of open.matchAll(/\s([a-z-]+)="([^"]*)"/g)) attrs[m[1]] = decodeEntities(m[2]);
  return attrs;
}

function decodeEntities(s: string): string {
  return s.replace(
    /&(amp|quot|#39|lt|gt);/g,
    (_, e) => ({ amp: "&", quot: '"', "#39": "'", lt: "<", gt: ">" })[e as string]!,
  );
}

/** The attribute names `<cad-configurator>` reads (from its source, so a rename fails here). */
async function embedReads(): Promise<Set<string>> {
  const src = await Deno.readTextFile(
    new URL("../../lib/sdk/embed_element.ts", import.meta.url),
  );
  return new Set(
    [...src.matchAll(/(?:getAttribute|hasAttribute)\("([a-z-]+)"\)/g)].map((m) => m[1]),
  );
}

Deno.test("embed snippets - the custom element gets the attributes the embed reads", async () => {
  const reads = await embedReads();
  for (const name of ["key-id", "project", "hub-url", "kernel-url"]) {
    assert.ok(reads.has(name), `islands_embed.ts reads ${name}`);
  }
  const snippet = customElementSnippet(PLAIN);
  const attrs = attributesOf(snippet, "cad-configurator");
  for (const name of Object.keys(attrs)) assert.ok(reads.has(name), `the embed reads ${name}`);
  assert.deepEqual(attrs, {
    "key-id": PLAIN.keyId,
    project: PLAIN.project,
    "hub-url": PLAIN.baseUrl,
    "kernel-url": PLAIN.kernelUrl,
  });
  assert.equal(attributesOf(snippet, "script").src, "https://hub.example/sdk/v1/embed.js");
  // Without a separate render service the kernel URL is the hub's.
  const one = attributesOf(
    customElementSnippet({ ...PLAIN, kernelUrl: undefined }),
    "cad-configurator",
  );
  assert.equal(one["kernel-url"], PLAIN.baseUrl);
});

Deno.test("embed snippets - the iframe points at the hosted page with the ?key it reads", async () => {
  const route = await Deno.readTextFile(
    new URL("../../routes/configurator/[project]/index.tsx", import.meta.url),
  );
  assert.match(route, /ctx\.req\.query\("key"\)/, "the hosted page reads ?key=");
  const attrs = attributesOf(iframeSnippet(PLAIN), "iframe");
  const src = new URL(attrs.src);
  assert.equal(src.origin, PLAIN.baseUrl);
  assert.equal(src.pathname, `/configurator/${PLAIN.project}`);
  assert.equal(src.searchParams.get("key"), PLAIN.keyId);
  assert.equal(attrs.title, "Wall bracket configurator");
});

Deno.test("embed snippets - hostile values stay inside their HTML attributes", () => {
  for (const html of [customElementSnippet(EVIL), iframeSnippet(EVIL)]) {
    // Exactly the tags the snippet writes: nothing injected opens another element.
    const tags = [...html.matchAll(/<([a-z-]+)/g)].map((m) => m[1]);
    assert.ok(
      tags.every((t) => ["script", "cad-configurator", "iframe"].includes(t)),
      `only the snippet's own tags: ${tags}`,
    );
    // With the quoted values taken out, every opening tag holds only the snippet's attributes.
    for (const m of html.replace(/="[^"]*"/g, "=").matchAll(/<[a-z-]+([^>]*)>/g)) {
      const names = m[1].trim().split(/\s+/).filter(Boolean).map((a) => a.replace(/=$/, ""));
      for (const name of names) {
        assert.ok(
          [
            "src",
            "type",
            "key-id",
            "project",
            "hub-url",
            "kernel-url",
            "width",
            "height",
            "style",
            "allow",
            "title",
          ].includes(name),
          `unexpected attribute ${name}`,
        );
      }
    }
  }
  const el = attributesOf(customElementSnippet(EVIL), "cad-configurator");
  assert.equal(el["key-id"], EVIL.keyId);
  assert.equal(el.project, EVIL.project);
  assert.equal(el["hub-url"], EVIL.baseUrl);
  assert.equal(el["kernel-url"], EVIL.kernelUrl);
  const frame = attributesOf(iframeSnippet(EVIL), "iframe");
  assert.equal(frame.title, `${HOSTILE} configurator`);
  assert.equal(frame.src, configuratorUrl(EVIL));
  assert.ok(configuratorUrl(EVIL).includes(encodeURIComponent(EVIL.project)));
  assert.equal(escapeHtmlAttr(HOSTILE).match(/["'<>]/), null);
});

Deno.test("embed snippets - JavaScript and JSX get string literals that decode to the value", () => {
  assert.equal(JSON.parse(jsString(HOSTILE)), HOSTILE);
  assert.equal(jsString(HOSTILE).match(/[<>&\u2028\u2029]/), null, "safe inside <script>");
  for (const code of [browserFlowSnippet(EVIL), serverFlowFetch(EVIL), reactSnippet(EVIL)]) {
    assert.ok(!code.includes("</script"), "no script end tag");
    // The origin's line break stayed escaped: its payload is on the comment's line.
    assert.ok(!code.split("\n").some((l) => l.startsWith("<script>")), code);
  }
  const browser = browserFlowSnippet(EVIL);
  assert.ok(browser.includes(`keyId: ${jsString(EVIL.keyId)}`));
  assert.ok(browser.includes(`projectId: ${jsString(EVIL.project)}`));
  const react = reactSnippet(EVIL);
  const props = Object.fromEntries(
    [...react.matchAll(/([a-z-]+)=\{("(?:[^"\\]|\\.)*")\}/g)].map((m) => [m[1], JSON.parse(m[2])]),
  );
  assert.deepEqual(props, {
    "key-id": EVIL.keyId,
    project: EVIL.project,
    "hub-url": EVIL.baseUrl,
    "kernel-url": EVIL.kernelUrl,
  });
  // A key without projects shows a placeholder, not "undefined".
  assert.ok(
    browserFlowSnippet({ ...PLAIN, project: "" }).includes(`projectId: "your-project-slug"`),
  );
});

Deno.test("embed snippets - curl's words reach the program intact in a real shell", async () => {
  for (const value of [HOSTILE, "it's", "'", ""]) {
    const out = await new Deno.Command("sh", {
      args: ["-c", `printf '%s' ${shellWord(value)}`],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stdout), value);
  }
  const curl = serverFlowCurl({ ...PLAIN, origin: "https://o'brien.example" });
  // The snippet as a shell would split it (line continuations joined): the body is one word.
  const out = await new Deno.Command("sh", {
    args: [
      "-c",
      `for a in ${curl.replace(/^curl /, "").replaceAll("\\\n", " ")}; do echo "$a"; done`,
    ],
    stdout: "piped",
  }).output();
  const words = new TextDecoder().decode(out.stdout).trimEnd().split("\n");
  const body = JSON.parse(words[words.indexOf("-d") + 1]);
  assert.deepEqual(body, { projectId: PLAIN.project, origin: "https://o'brien.example" });
  assert.ok(words.includes("Authorization: Bearer sdk_kaaaaaaaaaaaaaaaaaaaa_<secret>"));
});
