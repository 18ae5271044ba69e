/**
 * The SDK's stable module source (`stableModule`, lib/sdk/bundle_route.ts), evaluated for real: a
 * bundle, its chunk and a lazy part's chunk written as files, the stable module imported.
 */
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { stableModule } from "@/lib/sdk/bundle_route.ts";

/** Writes the files of a fake build; every module records when it ran. */
async function fakeBuild(dir: string) {
  const url = (name: string) => pathToFileURL(`${dir}/${name}`).href;
  const files: Record<string, string> = {
    "chunk-A.js": 'globalThis.ran.push("chunk");export const a = 1;',
    "entry-1.js": 'import { a } from "./chunk-A.js";globalThis.ran.push("bundle");' +
      "export class Thing { static a = a; }export const helper = () => 2;",
    "chunk-THREE.js": 'globalThis.ran.push("three");',
  };
  for (const [name, code] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, code);
  }
  return { bundle: url("entry-1.js"), chunk: url("chunk-A.js"), three: url("chunk-THREE.js") };
}

Deno.test("stable module - with export names: everything starts at once, the names are re-exported", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stable-module-" });
  const ran: string[] = (globalThis as unknown as { ran: string[] }).ran = [];
  try {
    const { bundle, chunk, three } = await fakeBuild(dir);
    const source = stableModule(bundle, [chunk], [three], ["Thing", "helper"]);
    // The requests leave before the bundle's import is awaited.
    assert.ok(source.indexOf(JSON.stringify(three)) < source.indexOf("await import("), source);
    await Deno.writeTextFile(`${dir}/stable.js`, source);
    const mod = await import(pathToFileURL(`${dir}/stable.js`).href);
    assert.equal(typeof mod.Thing, "function");
    assert.equal(mod.Thing.a, 1);
    assert.equal(mod.helper(), 2);
    assert.deepEqual(Object.keys(mod).sort(), ["Thing", "helper"]);
    // The bundle ran by the time the stable module's importer sees its names; three.js was
    // asked for too, and runs when it arrives.
    await import(three);
    assert.ok(ran.includes("bundle") && ran.includes("three") && ran.includes("chunk"), `${ran}`);
    assert.ok(ran.indexOf("chunk") < ran.indexOf("bundle"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stable module - without export names: export * of the bundle, three.js started after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stable-module-" });
  const ran: string[] = (globalThis as unknown as { ran: string[] }).ran = [];
  try {
    const { bundle, chunk, three } = await fakeBuild(dir);
    const source = stableModule(bundle, [chunk], [three]);
    assert.match(source, /^import "[^"]+chunk-A\.js";$/m);
    assert.match(source, /^export \* from "[^"]+entry-1\.js";$/m);
    await Deno.writeTextFile(`${dir}/stable.js`, source);
    const mod = await import(pathToFileURL(`${dir}/stable.js`).href);
    assert.equal(mod.helper(), 2);
    await import(three);
    assert.deepEqual(ran, ["chunk", "bundle", "three"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
