/**
 * The settings' embed snippets: they name the attributes the embed really reads, and hostile
 * values (titles, origins, slugs, URLs) stay values — checked by decoding them back the way an
 * HTML parser, a JavaScript engine and a real shell would.
 */
import assert from "node:assert/strict";
import { ServerMintBody } from "@/lib/hub/mint_request.ts";
import {
  browserFlowSnippet,
  configuratorUrl,
  customElementSnippet,
  escapeHtmlAttr,
  iframeSnippet,
  jsString,
  reactSnippet,
  SDK_PACKAGE,
  serverFlowCurl,
  serverFlowEmbedSnippet,
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
  const src = (await Promise.all(
    ["configurator_element.ts", "embed_attributes.ts"].map((f) =>
      Deno.readTextFile(new URL(`../../lib/sdk/${f}`, import.meta.url))
    ),
  )).join("\n");
  return new Set(
    [...src.matchAll(/(?:getAttribute|hasAttribute)\("([a-z-]+)"\)/g)].map((m) => m[1]),
  );
}

Deno.test("embed snippets - the custom element gets the attributes the embed reads", async () => {
  const reads = await embedReads();
  for (const name of ["key-id", "project", "hub-url", "kernel-url"]) {
    assert.ok(reads.has(name), `the element reads ${name}`);
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
  for (
    const code of [
      browserFlowSnippet(EVIL),
      serverFlowFetch(EVIL),
      reactSnippet(EVIL),
      serverFlowEmbedSnippet(EVIL),
    ]
  ) {
    assert.ok(!code.includes("</script"), "no script end tag");
    // The origin's line break stayed escaped: its payload is on the comment's line.
    assert.ok(!code.split("\n").some((l) => l.startsWith("<script>")), code);
  }
  const browser = browserFlowSnippet(EVIL);
  assert.ok(browser.includes(`keyId: ${jsString(EVIL.keyId)}`));
  assert.ok(browser.includes(`projectId: ${jsString(EVIL.project)}`));
  assert.deepEqual(jsxStringProps(reactSnippet(EVIL)), {
    keyId: EVIL.keyId,
    projectKey: EVIL.project,
    hubBaseUrl: EVIL.baseUrl,
    baseUrl: EVIL.kernelUrl,
  });
  const server = serverFlowEmbedSnippet(EVIL);
  assert.deepEqual(jsxStringProps(server), {
    projectKey: EVIL.project,
    hubBaseUrl: EVIL.baseUrl,
    baseUrl: EVIL.kernelUrl,
  });
  assert.deepEqual(mintBodyOf(server), { projectId: EVIL.project, origin: EVIL.origin });
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

/** The JSX props given as string literals (`name={"…"}`), decoded. */
function jsxStringProps(code: string): Record<string, string> {
  return Object.fromEntries(
    [...code.matchAll(/([A-Za-z-]+)=\{("(?:[^"\\]|\\.)*")\}/g)].map((
      m,
    ) => [m[1], JSON.parse(m[2])]),
  );
}

/** Every JSX prop name of the `<Configurator …/>` element in `code`. */
function configuratorPropNames(code: string): string[] {
  const start = code.indexOf("<Configurator");
  assert.ok(start >= 0, code);
  const element = code.slice(start, code.indexOf("/>", start));
  return [...element.matchAll(/^\s+([A-Za-z]+)=/gm)].map((m) => m[1]);
}

/** The object the snippet's mint `fetch` sends, evaluated as the JavaScript engine would. */
function mintBodyOf(code: string): unknown {
  const literal = /body: JSON\.stringify\((\{.*\})\),\n/.exec(code)?.[1];
  assert.ok(literal, `a JSON.stringify body in ${code}`);
  return new Function(`return (${literal});`)();
}

/** Member names of `interface <name>` in a TypeScript source (one member per line). */
function interfaceMembers(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name}`);
  assert.ok(start >= 0, `interface ${name}`);
  const body = source.slice(source.indexOf("{", start) + 1, source.indexOf("\n}", start));
  return [...body.matchAll(/^ {2}(?:readonly )?([A-Za-z]+)\??:/gm)].map((m) => m[1]);
}

const read = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));

/** The names the npm package's React entry exports and its `Configurator` reads. */
async function reactPackage(): Promise<{ name: string; exports: string[]; props: Set<string> }> {
  const pkg = JSON.parse(await read("packages/sdk/package.json"));
  assert.ok(pkg.exports["./react"], "the package has a ./react entry");
  const mod = await read("packages/sdk/src/react/mod.ts");
  const exports = [...mod.matchAll(/export \{([^}]*)\}/g)].flatMap((m) =>
    m[1].split(",").map((n) => n.trim()).filter((n) => n && !n.startsWith("type "))
  );
  // Configurator's props: the provider's (spec 4.3, the client options) plus its UI's own.
  const props = new Set([
    ...interfaceMembers(
      await read("lib/client/configurator_clients.ts"),
      "ConfiguratorClientOptions",
    ),
    ...interfaceMembers(await read("packages/sdk/src/react/Configurator.ts"), "ConfiguratorProps"),
  ]);
  return { name: pkg.name, exports, props };
}

Deno.test("embed snippets - React imports the npm package's Configurator with props it reads", async () => {
  const pkg = await reactPackage();
  assert.equal(pkg.name, SDK_PACKAGE);
  for (const name of ["Configurator", "ConfiguratorProvider", "Viewer", "ParameterForm"]) {
    assert.ok(pkg.exports.includes(name), `${SDK_PACKAGE}/react exports ${name}`);
  }
  for (const code of [reactSnippet(PLAIN), serverFlowEmbedSnippet(PLAIN)]) {
    assert.match(code, new RegExp(`import \\{ Configurator \\} from "${SDK_PACKAGE}/react";`));
    assert.match(code, new RegExp(`npm install ${SDK_PACKAGE}`));
    const names = configuratorPropNames(code);
    assert.ok(names.length >= 4, names.join());
    for (const name of names) assert.ok(pkg.props.has(name), `Configurator reads ${name}`);
  }
  // Browser flow: the keyId; server flow: the token and a way to get a new one.
  assert.deepEqual(configuratorPropNames(reactSnippet(PLAIN)), [
    "keyId",
    "projectKey",
    "hubBaseUrl",
    "baseUrl",
    "style",
  ]);
  const server = configuratorPropNames(serverFlowEmbedSnippet(PLAIN));
  assert.ok(server.includes("sessionToken") && server.includes("onTokenExpired"), server.join());
  assert.ok(!server.includes("keyId"), "no keyId in the server flow");
  assert.equal(jsxStringProps(reactSnippet(PLAIN)).baseUrl, PLAIN.kernelUrl);
  assert.equal(
    jsxStringProps(reactSnippet({ ...PLAIN, kernelUrl: undefined })).baseUrl,
    PLAIN.baseUrl,
  );
});

Deno.test("embed snippets - the server flow mints with the body the hub reads, secret on the server", async () => {
  const code = serverFlowEmbedSnippet(PLAIN);
  // The body is exactly a server-flow mint body the hub accepts (strict: no unknown member).
  const body = ServerMintBody.parse(mintBodyOf(code));
  assert.deepEqual(body, { projectId: PLAIN.project, origin: PLAIN.origin });
  assert.ok(code.includes(`fetch(${jsString(`${PLAIN.baseUrl}/api/v1/sdk/session-tokens`)}`));
  const route = await read("routes/api/v1/sdk/session-tokens.ts");
  assert.ok(route.length > 0, "the mint route exists");
  // The secret comes from the server's environment; the page part never names it.
  assert.match(code, /authorization: `Bearer \$\{process\.env\.SDK_KEY\}`/);
  const page = code.slice(code.indexOf("// 2."));
  assert.ok(!/SDK_KEY|secret|authorization/i.test(page), page);
  // The page gets its token from the partner's backend, not from the hub.
  assert.ok(!page.includes(PLAIN.baseUrl + "/api/"), "the page does not mint");
});
