/**
 * The island build is driven by the route manifest and the app: its islands are the manifest's,
 * its extra entries the app's (the SDK's bundles), and its inputs the entries' module graph, so
 * an edit to a server-only module (the evaluator, a route) does not rebuild the bundles.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { h } from "preact";
import { appIslandBuild } from "@/lib/app/app.ts";
import { SDK_BUNDLES } from "@/lib/sdk/bundle_route.ts";
import { createWebApp } from "@/lib/web/app.ts";
import type { Manifest } from "@/lib/web/context.ts";
import {
  buildInputs,
  buildIslands,
  dynamicImports,
  islandBuildOf,
  lazyChunks,
  manifestIslandBuild,
  manifestIslands,
  retryInstallRace,
  staticImports,
} from "@/lib/web/islands_build.ts";
import { islandPage } from "@/lib/web/islands_page.ts";
import manifest from "@/manifest.gen.ts";

const root = new URL("../../", import.meta.url).pathname;
const staticDir = new URL("../../static", import.meta.url).pathname;

Deno.test("islands build - the islands are the manifest's island modules with a component", () => {
  const Island = () => null;
  const { root: from, islands } = manifestIslands({
    baseUrl: "file:///srv/app/manifest.gen.ts",
    islands: {
      "./islands/Viewer.tsx": { default: Island },
      "./islands/Alpha.tsx": { default: Island },
      "./islands/helpers.ts": { format: () => "" },
    },
  });
  assert.equal(from, "/srv/app/");
  assert.deepEqual(islands, ["islands/Alpha.tsx", "islands/Viewer.tsx"]);
  assert.deepEqual(
    manifestIslands(manifest).islands,
    Object.keys(manifest.islands).map((p) => p.slice(2)).sort(),
  );
});

Deno.test("islands build - the inputs are the browser module graph, not the server's modules", async () => {
  const inputs = await buildInputs({ ...manifestIslands(manifest), entries: SDK_BUNDLES });
  for (
    const file of [
      "deno.json",
      "deno.lock",
      "islands/Configurator.tsx",
      "lib/client/mod.ts",
      "lib/dag/dag_types.ts",
      "lib/sdk/embed_element.ts",
      "lib/sdk/preact_entry.ts",
      "lib/web/islands_build.ts",
      "lib/web/islands_client.ts",
    ]
  ) {
    assert.ok(inputs.includes(file), `${file} feeds the bundles`);
  }
  const server = inputs.filter((f) => !/^(islands|lib\/(client|dag|sdk|web))\/|^deno\./.test(f));
  assert.deepEqual(server, [], "no server-only module is an input (lib/kernel, routes, …)");
  assert.ok(!inputs.includes("lib/sdk/bundle_route.ts"), "only what the browser loads");
});

Deno.test("islands build - extra entries need a free lowercase name", async () => {
  for (const name of ["boot", "island_Viewer", "Embed", "1st", "a-b", ""]) {
    await assert.rejects(
      buildIslands({ root, islands: [], entries: { [name]: "lib/dag/dag_limits.ts" } }),
      TypeError,
      name,
    );
  }
});

Deno.test("islands build - an extra entry is bundled on its own under a content-hashed name", async () => {
  const outDir = await Deno.makeTempDir({ prefix: "islands-build-" });
  try {
    const options = {
      root,
      islands: ["islands/ParameterForm.tsx"],
      entries: { field: "lib/client/parameter_field.ts" },
      outDir,
      urlPrefix: "/b",
    };
    const build = await buildIslands(options);
    assert.deepEqual(Object.keys(build.modules), ["ParameterForm"]);
    assert.deepEqual(Object.keys(build.entries), ["field"]);
    for (const url of [build.boot, build.modules.ParameterForm, build.entries.field]) {
      assert.match(url, /^\/b\/[a-z_A-Z]+-[0-9a-f]{12}\.js$/);
      assert.ok((await Deno.stat(`${outDir}/${url.slice(3)}`)).size > 0);
    }
    // The form imports the same module, yet the entry shares no chunk with it: it loads alone.
    const entry = await Deno.readTextFile(`${outDir}/${build.entries.field.slice(3)}`);
    assert.match(entry, /checkParameterValue/, "the module's code is in the file");
    assert.doesNotMatch(entry, /(?:from|import)\s*\(?\s*["']\.\//, "it imports no other file");
    const { inputHash } = await buildIslands({ ...options, entries: {} });
    assert.notEqual(inputHash, build.inputHash, "the entries are part of the inputs");
    const again = await buildIslands(options);
    assert.deepEqual({ ...again, ms: 0 }, { ...build, ms: 0 });
    assert.equal(again.ms, 0);
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});

Deno.test("islands build - a request sees its app's shared build, and a page its caller's stylesheet", async () => {
  const app = createWebApp(
    {
      baseUrl: manifest.baseUrl,
      islands: manifest.islands,
      routes: {
        "./routes/build.ts": {
          handler: { GET: async (c) => Response.json(await islandBuildOf(c)) },
        },
        "./routes/page.ts": {
          handler: {
            GET: (c) =>
              islandPage(c, {
                title: "t",
                css: ".page{}",
                frameAncestors: [],
                body: () => h("main", null),
              }),
          },
        },
      },
    } satisfies Manifest,
    { role: "all", staticDir, islandEntries: SDK_BUNDLES },
  );
  const build = await (await app.request("/build")).json();
  const expected = await appIslandBuild(manifest);
  assert.deepEqual({ ...build, ms: 0 }, { ...expected, ms: 0 });
  assert.equal(await manifestIslandBuild(manifest, SDK_BUNDLES), await appIslandBuild(manifest));
  const html = await (await app.request("/page")).text();
  assert.match(html, /<style nonce="[0-9a-f]{32}">\.page\{\}<\/style>/);
  assert.ok(!html.includes("cad-"), "the framework adds no product CSS");
  const bare = new Hono().get(
    "/",
    (c) => islandBuildOf(c).then(() => c.text(""), (e) => c.text(e)),
  );
  assert.match(await (await bare.request("/")).text(), /no island build on this request/);
});

Deno.test("islands build - a bundle's static imports are read from its head, not its lazy imports", () => {
  assert.deepEqual(
    staticImports(
      'import{a as c}from"./chunk-A1.js";import"./chunk-B2.js";import d,{e}from"./chunk-C3.js";' +
        'import*as f from"./chunk-D4.js";var g=1;import("./chunk-LAZY.js");',
    ),
    ["./chunk-A1.js", "./chunk-B2.js", "./chunk-C3.js", "./chunk-D4.js"],
  );
  assert.deepEqual(staticImports('var a=import("./chunk-LAZY.js");'), []);
  assert.deepEqual(staticImports(""), []);
});

Deno.test("islands build - the chunks a bundle's lazy parts need, and it does not, are found for preloading", async () => {
  assert.deepEqual(
    dynamicImports(
      'var v=()=>import("./view-X.js"),u=import( "./usdz-Y.js" );import"./chunk-A.js";',
    ),
    ["./view-X.js", "./usdz-Y.js"],
  );
  const dir = await Deno.makeTempDir();
  try {
    const files: Record<string, string> = {
      "entry-1.js": 'import{a}from"./chunk-A.js";var v=()=>import("./view-X.js");',
      // A lazy import inside a chunk the bundle imports counts too.
      "chunk-A.js": 'var a=1,u=()=>import("./usdz-Y.js");export{a};',
      "view-X.js": 'import{t}from"./chunk-THREE.js";import"./chunk-A.js";export{t};',
      "usdz-Y.js": 'import"./chunk-THREE.js";import"./chunk-ZIP.js";',
      "chunk-THREE.js": 'import"./chunk-CORE.js";var t=1;export{t};',
      "chunk-CORE.js": "var c=1;",
      "chunk-ZIP.js": "var z=1;",
      "chunk-UNUSED.js": "var n=1;",
    };
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    // Not the bundle's own chunks, not the lazy parts themselves (they load when asked for).
    assert.deepEqual(await lazyChunks(dir, "entry-1.js"), [
      "chunk-CORE.js",
      "chunk-THREE.js",
      "chunk-ZIP.js",
    ]);
    await Deno.writeTextFile(`${dir}/entry-2.js`, 'import"./chunk-CORE.js";var x=1;');
    assert.deepEqual(await lazyChunks(dir, "entry-2.js"), [], "nothing lazy, nothing to preload");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("islands build - a bundle that fails leaves nothing behind, after the others have ended", async () => {
  const outDir = await Deno.makeTempDir({ prefix: "islands-build-" });
  const broken = await Deno.makeTempFile({ prefix: "broken-entry-", suffix: ".ts" });
  try {
    // Parses as a module graph (deno info) but not as code: its bundle fails at once, while the
    // islands' bundle is still being written.
    await Deno.writeTextFile(broken, "const x: number = ;\nexport { x };\n");
    await assert.rejects(
      buildIslands({
        root,
        islands: ["islands/Configurator.tsx"],
        entries: { broken },
        outDir,
        urlPrefix: "/b",
      }),
      /deno bundle failed/,
    );
    const children = await new Deno.Command("ps", {
      args: ["-o", "args=", "--ppid", String(Deno.pid)],
      stdout: "piped",
    }).output();
    const running = new TextDecoder().decode(children.stdout).split("\n")
      .filter((line) => line.includes(" bundle ") && line.includes(outDir));
    assert.deepEqual(running, [], "no bundle is still running when the build has failed");
    const left: string[] = [];
    for await (const entry of Deno.readDir(outDir)) left.push(entry.name);
    assert.deepEqual(left, [], "no temporary folder and no half build");
  } finally {
    await Deno.remove(outDir, { recursive: true });
    await Deno.remove(broken);
  }
});

Deno.test("islands build - a bundle that lost the esbuild install race is run again; other failures are not", async () => {
  const race = new Error(
    "deno bundle failed:\nerror: failed to copy esbuild binary from /cache/esbuild to /dl/.tmp",
  );
  let runs = 0;
  const built = await retryInstallRace(() => {
    runs++;
    return runs < 3 ? Promise.reject(race) : Promise.resolve("built");
  }, [1, 1, 1]);
  assert.equal(built, "built");
  assert.equal(runs, 3, "run until the install is in place");

  runs = 0;
  await assert.rejects(
    retryInstallRace(() => {
      runs++;
      return Promise.reject(new Error("deno bundle failed:\nerror: Module not found"));
    }, [1, 1, 1]),
    /Module not found/,
  );
  assert.equal(runs, 1, "a failure of the sources is not retried");

  runs = 0;
  await assert.rejects(
    retryInstallRace(() => {
      runs++;
      return Promise.reject(race);
    }, [1, 1]),
    /failed to copy esbuild binary/,
  );
  assert.equal(runs, 3, "the waits bound the retries, and the last failure is thrown");
});
