import assert from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import {
  escapeJsonForScript,
  IslandCollector,
  islandName,
  islandRegistry,
} from "@/lib/web/islands.ts";
import { buildIslands } from "@/lib/web/islands_build.ts";
import { appIslandBuild } from "@/lib/app/app.ts";
import { SDK_BUNDLES } from "@/lib/sdk/bundle_route.ts";
import manifest from "@/manifest.gen.ts";

const build = {
  boot: "/build/boot-abc.js",
  embed: "/build/embed-abc.js",
  sdk: "/build/sdk-abc.js",
  modules: { Counter: "/build/island_Counter-abc.js" },
  inputHash: "x",
  ms: 0,
};

function Counter(props: { start: number; label: string }) {
  return h("button", null, `${props.label} ${props.start}`);
}

Deno.test("islands - markers surround the server-rendered island and props go into one boot script", () => {
  const c = new IslandCollector(build);
  const html = renderToString(
    h(
      "main",
      null,
      c.island("Counter", Counter, { start: 3, label: "</script><!--" }),
      c.island("Counter", Counter, { start: 4, label: "b" }),
      c.boot("n0nce"),
    ),
  );
  assert.match(
    html,
    /<!--island:Counter:0--><button>&lt;\/script>&lt;!-- 3<\/button><!--\/island:0-->/,
  );
  assert.match(html, /<!--island:Counter:1--><button>b 4<\/button><!--\/island:1-->/);
  const data = /<script type="application\/json" id="__islands" nonce="n0nce">(.*?)<\/script>/
    .exec(html)![1];
  assert.ok(!data.includes("</script"), "a prop cannot close the script element");
  const parsed = JSON.parse(data);
  assert.deepEqual(parsed.islands[0], {
    id: 0,
    name: "Counter",
    props: { start: 3, label: "</script><!--" },
  });
  assert.deepEqual(parsed.modules, { Counter: "/build/island_Counter-abc.js" });
  assert.match(html, /<script type="module" src="\/build\/boot-abc.js" nonce="n0nce"><\/script>/);
});

Deno.test("islands - escaping keeps script-breaking characters out of the JSON text", () => {
  const text = escapeJsonForScript({ a: "<>&\u2028\u2029" });
  assert.equal(text, '{"a":"\\u003c\\u003e\\u0026\\u2028\\u2029"}');
  assert.deepEqual(JSON.parse(text), { a: "<>&\u2028\u2029" });
});

Deno.test("islands - an island that was not built is refused at render time", () => {
  const c = new IslandCollector(build);
  assert.throws(() => c.island("Nope", Counter, { start: 1, label: "" }), /no island module/);
});

Deno.test("islands - the registry maps file names to default exports", () => {
  const registry = islandRegistry({
    "./islands/Viewer.tsx": { default: Counter },
    "./islands/helpers.ts": { other: 1 },
  });
  assert.deepEqual([...registry.keys()], ["Viewer"]);
  assert.equal(islandName("./islands/ParameterForm.tsx"), "ParameterForm");
});

Deno.test("islands - the build writes content-hashed ESM bundles and reuses them for the same sources", async () => {
  const first = await appIslandBuild(manifest);
  const { embed, sdk } = first.entries;
  for (const url of [first.boot, embed, sdk, ...Object.values(first.modules)]) {
    assert.match(url, /^\/build\/[A-Za-z_]+-[0-9a-f]{12}\.js$/);
    const text = await Deno.readTextFile(new URL(`../../static${url}`, import.meta.url));
    assert.ok(text.length > 0);
  }
  assert.ok(first.modules.Configurator && first.modules.Viewer && first.modules.ParameterForm);
  const root = new URL("../../", import.meta.url).pathname;
  const islands = Object.keys(first.modules).map((n) => `islands/${n}.tsx`);
  const again = await buildIslands({ root, islands, entries: SDK_BUNDLES });
  assert.equal(again.inputHash, first.inputHash);
  assert.equal(again.ms, 0, "the manifest of the same sources short-circuits the build");
  // The element's bundle is built on its own: it loads its code and two small chunks it shares
  // with the lazy parts, not the thirteen chunks the pages' islands split into. three.js is not
  // among them: the view, the snapshot and the AR export import it lazily, and the stable module
  // starts it through the entry's start module (`entryPreloads`, `entryStarts`).
  const read = (url: string) => Deno.readTextFile(new URL(`../../static${url}`, import.meta.url));
  const chunks = (text: string) => new Set(text.match(/chunk-[A-Z0-9]+\.js/g) ?? []);
  const loaded = chunks(await read(embed));
  assert.ok(loaded.size <= 3, `the element's bundle imports ${[...loaded]}`);
  for (const chunk of loaded) {
    const code = await read(`/build/${chunk}`);
    assert.ok(!code.includes("WebGLRenderer"), `${chunk} is not three.js`);
    assert.ok(code.length < 20_000, `${chunk} is ${code.length} bytes`);
  }
  const [three, ...others] = first.entryPreloads?.embed ?? [];
  assert.deepEqual(others, [], "one chunk to preload");
  assert.ok((await read(three)).includes("WebGLRenderer"), "that chunk is three.js");
  assert.deepEqual(first.preloads?.Viewer, [three], "the viewer island preloads the same chunk");
  // The element's start module starts that chunk, by a URL relative to itself (both in /build/).
  const start = first.entryStarts?.embed ?? "";
  assert.match(start, /^\/build\/embed_start-[0-9a-f]{12}\.js$/);
  assert.equal(
    await read(start),
    `for (const c of ${JSON.stringify([`./${three.slice("/build/".length)}`])}) ` +
      "import(c).catch(() => {});\n",
  );
  // The boot is small; three.js lives in a shared chunk, loaded only by pages that need it.
  const boot = await Deno.readTextFile(new URL(`../../static${first.boot}`, import.meta.url));
  assert.ok(boot.length < 20_000, `boot is ${boot.length} bytes`);
});
