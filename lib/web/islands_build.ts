/**
 * Builds the browser bundles with `deno bundle` (ESM, browser platform, minified) into
 * `static/build/`, with content-hashed names: entries are renamed `<name>-<sha256:12>.js`, shared
 * chunks keep esbuild's content-hashed `chunk-<hash>.js`. Served with `Cache-Control: immutable`
 * by the static middleware.
 *
 * Entries: the client boot and one per island of the route manifest (each island's module is
 * loaded only on pages that use it), built by one `deno bundle` call with code splitting, so the
 * pages share one copy of preact and of any other library; and whatever extra modules the app
 * names (the product's embeddable element, say): scripts for other sites' pages, each bundled on
 * its own (its code in one file, plus the chunks its own lazy imports split off: three.js for the
 * element), so a partner's page loads a few files, not a waterfall of chunks split for pages it
 * never shows.
 *
 * The build runs once per set of sources. Its inputs are the files of the entries' module graph
 * (`deno info --json`), this builder, deno.json and deno.lock: an edit to a server-only module the
 * browser never imports does not rebuild. A `manifest-<hash>.json` in the output folder
 * short-circuits a rebuild — across processes too (test workers, restarts). Concurrent builders
 * write identical files and rename them into place atomically.
 */
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Context, Env } from "hono";
import type { Manifest, WebEnv } from "./context.ts";
import { type IslandBuild, islandName } from "./islands.ts";

export type { IslandBuild } from "./islands.ts";

/** Where the project lives, what to bundle, and where the build goes. */
export interface BuildOptions {
  /** The project root (holds deno.json). */
  root: string;
  /** Island file paths relative to the root (`islands/Viewer.tsx`). */
  islands: readonly string[];
  /**
   * Extra entries, name → module path (absolute, or relative to the root), re-exported whole, each
   * bundled on its own: its code in one file, plus the chunks its lazy imports split off.
   */
  entries?: Readonly<Record<string, string>>;
  /** Output folder (default `<root>/static/build`). */
  outDir?: string;
  /** URL path the output folder is served at (default `/build`). */
  urlPrefix?: string;
}

const BOOT_FILE = fileURLToPath(new URL("./islands_client.ts", import.meta.url));
const BUILDER_FILE = fileURLToPath(import.meta.url);
const ENTRY_NAME = /^[a-z][a-z0-9_]*$/;
const CONFIG_FILES = ["deno.json", "deno.lock"];

/** One bundle entry: its output name and the module it stands for. */
interface Entry {
  name: string;
  file: string;
  /** The stub's text, given the specifier of `file` from the stub folder. */
  stub: (specifier: string) => string;
}

/** The bundle entries of `options`: boot, islands, then the app's extra entries. */
function bundleEntries(options: BuildOptions): Entry[] {
  const entries: Entry[] = [{ name: "boot", file: BOOT_FILE, stub: (s) => `import "${s}";\n` }];
  for (const file of options.islands) {
    entries.push({
      name: `island_${islandName(file)}`,
      file: join(options.root, file),
      stub: (s) => `export { default } from "${s}";\n`,
    });
  }
  for (const [name, file] of Object.entries(options.entries ?? {})) {
    if (!ENTRY_NAME.test(name) || name === "boot" || name.startsWith("island_")) {
      throw new TypeError(`entry name ${JSON.stringify(name)} is not a free lowercase name`);
    }
    entries.push({
      name,
      file: isAbsolute(file) ? file : join(options.root, file),
      stub: (s) => `export * from "${s}";\n`,
    });
  }
  return entries;
}

/**
 * Builds (or reuses) the bundles.
 *
 * @example
 * ```ts
 * const build = await buildIslands({ root, islands: ["islands/Configurator.tsx"] });
 * build.modules.Configurator; // "/build/island_Configurator-1a2b3c4d5e6f.js"
 * ```
 */
export async function buildIslands(options: BuildOptions): Promise<IslandBuild> {
  const root = options.root;
  const outDir = options.outDir ?? join(root, "static", "build");
  const prefix = options.urlPrefix ?? "/build";
  const entries = bundleEntries(options);
  const inputHash = await hashInputs(root, entries);
  const manifestPath = join(outDir, `manifest-${inputHash}.json`);
  try {
    return { ...JSON.parse(await Deno.readTextFile(manifestPath)), ms: 0 };
  } catch {
    // not built yet
  }
  const started = performance.now();
  await Deno.mkdir(outDir, { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: outDir, prefix: ".tmp-" });
  try {
    const src = join(tmp, "src");
    const out = join(tmp, "out");
    await Deno.mkdir(src);
    // One folder of entry stubs, so esbuild writes every entry and chunk flat into `out`.
    for (const e of entries) {
      await Deno.writeTextFile(join(src, `${e.name}.ts`), e.stub(rel(src, e.file)));
    }
    // The page bundles share chunks (one `deno bundle` call with code splitting). Each extra entry
    // is a script for other sites' pages, bundled on its own: it loads few files, not the islands'
    // many chunks.
    const standalone = new Set(Object.keys(options.entries ?? {}));
    const calls = [
      { out, of: entries.filter((e) => !standalone.has(e.name)) },
      ...entries.filter((e) => standalone.has(e.name)).map((e) => ({
        out: join(tmp, `out-${e.name}`),
        of: [e],
      })),
    ];
    // Every bundle ends before a failure is thrown: one still writing into `tmp` after the
    // cleanup below would leave its folder behind.
    const bundled = await Promise.allSettled(
      calls.map((c) => bundle(root, c.out, c.of.map((e) => join(src, `${e.name}.ts`)))),
    );
    for (const outcome of bundled) if (outcome.status === "rejected") throw outcome.reason;
    const names = new Set(entries.map((e) => e.name));
    const urls: Record<string, string> = {};
    const entryImports: Record<string, string[]> = {};
    for (const call of calls) {
      for await (const entry of Deno.readDir(call.out)) {
        if (!entry.isFile || !entry.name.endsWith(".js")) continue;
        const base = entry.name.slice(0, -3);
        let target = entry.name;
        if (names.has(base)) {
          const bytes = await Deno.readFile(join(call.out, entry.name));
          target = await contentHashedName(base, bytes);
          urls[base] = `${prefix}/${target}`;
          if (standalone.has(base)) {
            const chunks = staticImports(new TextDecoder().decode(bytes));
            entryImports[base] = chunks.map((c) => `${prefix}/${c.slice(2)}`);
          }
        }
        await Deno.rename(join(call.out, entry.name), join(outDir, target));
      }
    }
    // Every entry's and island's lazy chunks, from one read of each file (three.js is 0.6 MB).
    const texts = new Map<string, string>();
    const entryPreloads: Record<string, string[]> = {};
    const entryStarts: Record<string, string> = {};
    for (const name of standalone) {
      const chunks = await lazyChunks(outDir, urls[name].slice(prefix.length + 1), texts);
      entryPreloads[name] = chunks.map((c) => `${prefix}/${c}`);
      if (chunks.length) {
        const file = await writeStartModule(outDir, name, chunks);
        entryStarts[name] = `${prefix}/${file}`;
      }
    }
    const modules: Record<string, string> = {};
    const preloads: Record<string, string[]> = {};
    for (const file of options.islands) {
      const name = islandName(file);
      modules[name] = urls[`island_${name}`];
      const chunks = await lazyChunks(outDir, modules[name].slice(prefix.length + 1), texts);
      if (chunks.length) preloads[name] = chunks.map((c) => `${prefix}/${c}`);
    }
    const extra: Record<string, string> = {};
    for (const name of standalone) extra[name] = urls[name];
    const build: IslandBuild = {
      boot: urls.boot,
      modules,
      preloads,
      entries: extra,
      entryImports,
      entryPreloads,
      entryStarts,
      inputHash,
      ms: Math.round(performance.now() - started),
    };
    const tmpManifest = join(tmp, "manifest.json");
    await Deno.writeTextFile(tmpManifest, JSON.stringify(build));
    await Deno.rename(tmpManifest, manifestPath);
    return build;
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/**
 * Writes the start module of the extra entry `name` into `dir` and returns its file name
 * (content-hashed, beside the chunks): a module whose only code starts `chunks` (files of `dir`)
 * with `import()`. A stable module imports it before the bundle, so it runs as soon as the bundle
 * has arrived and before the bundle runs (dependencies run in order), and the chunks download
 * while the bundle runs.
 */
async function writeStartModule(dir: string, name: string, chunks: string[]): Promise<string> {
  const code = `for (const c of ${JSON.stringify(chunks.map((c) => `./${c}`))}) ` +
    `import(c).catch(() => {});\n`;
  const bytes = new TextEncoder().encode(code);
  const file = await contentHashedName(`${name}_start`, bytes);
  await Deno.writeFile(join(dir, file), bytes);
  return file;
}

/**
 * Deno's first `deno bundle` on a machine installs esbuild into its cache. Bundles started at once
 * (this builder runs several) can fail with this: one copies the binary before another has
 * unpacked it (4 bundles at once on an empty `DENO_DIR` lost it in about one try in four here).
 * It is not the sources' fault, and the binary is in place once the other has finished.
 */
const ESBUILD_INSTALL_RACE = /failed to copy esbuild binary/;

/** Waits before each retry of a bundle that lost the esbuild install race, in milliseconds. */
const INSTALL_RACE_WAITS_MS = [500, 2_000, 5_000];

/**
 * Runs `deno bundle` (browser ESM, code splitting, minified) of `files` into `out`, again after a
 * wait while it loses the race to install esbuild (`ESBUILD_INSTALL_RACE`).
 */
async function bundle(root: string, out: string, files: string[]): Promise<void> {
  await retryInstallRace(() => bundleOnce(root, out, files));
}

/**
 * Runs `attempt`, and again after each of `waitsMs` while it fails with esbuild's install race
 * (`ESBUILD_INSTALL_RACE`); any other failure, or the last, is thrown as it is.
 *
 * @example
 * ```ts
 * await retryInstallRace(() => runDeno(root, ["bundle", "main.ts"]));
 * ```
 */
export async function retryInstallRace<T>(
  attempt: () => Promise<T>,
  waitsMs: readonly number[] = INSTALL_RACE_WAITS_MS,
): Promise<T> {
  for (const wait of waitsMs) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof Error) || !ESBUILD_INSTALL_RACE.test(err.message)) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  return await attempt();
}

async function bundleOnce(root: string, out: string, files: string[]): Promise<void> {
  await runDeno(root, [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--format",
    "esm",
    "--code-splitting",
    "--minify",
    "--outdir",
    out,
    ...files,
  ]);
}

/** Runs `deno <args>` in `root` and returns its stdout; throws with its stderr when it fails. */
async function runDeno(root: string, args: string[]): Promise<Uint8Array> {
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(`deno ${args[0]} failed:\n${new TextDecoder().decode(result.stderr)}`);
  }
  return result.stdout;
}

/**
 * The chunks a bundle imports statically: esbuild writes them first, as
 * `import{a as b}from"./chunk-X.js";` or `import"./chunk-X.js";` (its dynamic `import()`s come
 * later, inside the code).
 *
 * @example
 * ```ts
 * staticImports('import{a as c}from"./chunk-AB.js";import"./chunk-CD.js";var x=1;');
 * // ["./chunk-AB.js", "./chunk-CD.js"]
 * ```
 */
export function staticImports(bundle: string): string[] {
  const found: string[] = [];
  const head =
    /import\s*(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*\s*as\s+[\w$]+)?\s*(?:from\s*)?"(\.\/[^"]+)"\s*;?/y;
  for (let m = head.exec(bundle); m; m = head.exec(bundle)) found.push(m[1]);
  return found;
}

/**
 * The `import("./x.js")` targets in a bundle or chunk (esbuild writes its lazy imports so).
 *
 * @example
 * ```ts
 * dynamicImports('var v=()=>import("./scene_view-AB.js");'); // ["./scene_view-AB.js"]
 * ```
 */
export function dynamicImports(code: string): string[] {
  return [...code.matchAll(/\bimport\(\s*"(\.\/[^"]+)"\s*\)/g)].map((m) => m[1]);
}

/**
 * The chunks that the lazily imported parts of the bundle `entry` (a file in `dir`) import
 * statically and the bundle does not: three.js, which the view loads as it mounts. A stable module
 * that starts them early saves the lazy part the round trip of finding them after it arrives.
 * `texts` (file → code) caches the reads across calls on the same build.
 */
export async function lazyChunks(
  dir: string,
  entry: string,
  texts: Map<string, string> = new Map(),
): Promise<string[]> {
  const read = async (file: string) => {
    if (!texts.has(file)) texts.set(file, await Deno.readTextFile(join(dir, file)));
    return texts.get(file)!;
  };
  const closure = async (starts: Iterable<string>) => {
    const seen = new Set<string>();
    const stack = [...starts];
    while (stack.length) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const chunk of staticImports(await read(file))) stack.push(chunk.slice(2));
    }
    return seen;
  };
  const eager = await closure([entry]);
  const lazy = new Set<string>();
  for (const file of eager) {
    for (const chunk of dynamicImports(await read(file))) lazy.add(chunk.slice(2));
  }
  const needed = await closure(lazy);
  return [...needed].filter((file) => !eager.has(file) && !lazy.has(file)).sort();
}

/** A relative import specifier from `fromDir` to `file`. */
function rel(fromDir: string, file: string): string {
  const r = relative(fromDir, file);
  return r.startsWith(".") ? r : `./${r}`;
}

/**
 * The local files that feed the bundles of `options`, relative to the root and sorted: the module
 * graph of every entry (`deno info --json`), this builder, deno.json and deno.lock.
 *
 * @example
 * ```ts
 * await buildInputs({ root, islands: ["islands/Viewer.tsx"] }); // ["deno.json", …, "islands/Viewer.tsx", …]
 * ```
 */
export async function buildInputs(options: BuildOptions): Promise<string[]> {
  const files = await graphFiles(options.root, bundleEntries(options));
  return files.map((f) => relative(options.root, f));
}

/** The absolute paths of the entries' module graph, this builder and the config files. */
async function graphFiles(root: string, entries: readonly Entry[]): Promise<string[]> {
  const stub = await Deno.makeTempFile({ prefix: "islands-graph-", suffix: ".ts" });
  try {
    const imports = entries.map((e) => `import ${JSON.stringify(pathToFileURL(e.file).href)};`);
    await Deno.writeTextFile(stub, imports.join("\n") + "\n");
    const stdout = await runDeno(root, ["info", "--json", stub]);
    const info = JSON.parse(new TextDecoder().decode(stdout)) as {
      modules: Array<{ local?: string }>;
    };
    const files = new Set([BUILDER_FILE, ...CONFIG_FILES.map((f) => join(root, f))]);
    for (const m of info.modules) if (m.local && m.local !== stub) files.add(m.local);
    return [...files].sort();
  } finally {
    await Deno.remove(stub).catch(() => {});
  }
}

/** SHA-256 over the entry table and the paths and contents of every input file. */
async function hashInputs(root: string, entries: readonly Entry[]): Promise<string> {
  const enc = new TextEncoder();
  const table = entries.map((e) => `${e.name} ${relative(root, e.file)}`).sort().join("\n");
  const parts: Uint8Array[] = [enc.encode(table + "\0")];
  for (const f of await graphFiles(root, entries)) {
    parts.push(enc.encode(relative(root, f) + "\0"));
    try {
      parts.push(await Deno.readFile(f));
    } catch {
      // an optional input (deno.lock) may be absent
    }
    parts.push(enc.encode("\0"));
  }
  const total = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    total.set(p, at);
    at += p.length;
  }
  return (await sha256Hex(total)).slice(0, 16);
}

/** `<base>-<12 hex digits of the SHA-256 of bytes>.js`: the name a built file is served under. */
async function contentHashedName(base: string, bytes: Uint8Array): Promise<string> {
  return `${base}-${(await sha256Hex(bytes)).slice(0, 12)}.js`;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** At most this many distinct builds are remembered per process (apps and tests use one or two). */
const MAX_SHARED_BUILDS = 8;
const shared = new Map<string, Promise<IslandBuild>>();

/**
 * The process's build for `options`, built on first call and then shared (every app over one
 * manifest reuses it). A failed build is not kept, so the next call tries again.
 */
export function sharedIslandBuild(options: BuildOptions): Promise<IslandBuild> {
  const key = JSON.stringify([
    options.root,
    [...options.islands].sort(),
    Object.entries(options.entries ?? {}).sort(),
    options.outDir,
    options.urlPrefix,
  ]);
  let build = shared.get(key);
  if (!build) {
    if (shared.size >= MAX_SHARED_BUILDS) shared.delete(shared.keys().next().value!);
    const started = buildIslands(options);
    started.catch(() => shared.get(key) === started && shared.delete(key));
    shared.set(key, build = started);
  }
  return build;
}

/**
 * The build options of a route manifest: its root (the folder of `manifest.gen.ts`) and its
 * islands (the `islands` entries whose module has a component as default export).
 *
 * @example
 * ```ts
 * manifestIslands(manifest); // { root: "/app", islands: ["islands/Configurator.tsx", …] }
 * ```
 */
export function manifestIslands<E extends Env>(
  manifest: Pick<Manifest<E>, "baseUrl" | "islands">,
): { root: string; islands: string[] } {
  const islands = Object.entries(manifest.islands)
    .filter(([, module]) => typeof module.default === "function")
    .map(([path]) => path.replace(/^\.\//, ""))
    .sort();
  return { root: fileURLToPath(new URL(".", manifest.baseUrl)), islands };
}

/**
 * The shared build of `manifest`'s islands plus the app's extra `entries`.
 *
 * @example
 * ```ts
 * const build = await manifestIslandBuild(manifest, { embed: "lib/sdk/embed_element.ts" });
 * build.entries.embed; // "/build/embed-1a2b3c4d5e6f.js"
 * ```
 */
export function manifestIslandBuild<E extends Env>(
  manifest: Pick<Manifest<E>, "baseUrl" | "islands">,
  entries: Readonly<Record<string, string>> = {},
): Promise<IslandBuild> {
  return sharedIslandBuild({ ...manifestIslands(manifest), entries });
}

/**
 * The island build of the app serving `c` (set by `createWebApp` on every request).
 *
 * @example
 * ```ts
 * const { entries } = await islandBuildOf(ctx);
 * ```
 */
export async function islandBuildOf<E extends Env>(c: Context<E>): Promise<IslandBuild> {
  const build = (c as unknown as Context<WebEnv>).get("islandBuild");
  if (!build) throw new Error("no island build on this request: serve it with createWebApp");
  return await build();
}
