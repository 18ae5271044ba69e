/**
 * Builds the browser bundles with `deno bundle` (ESM, browser platform, code splitting, minified)
 * into `static/build/`, with content-hashed names: entries are renamed `<name>-<sha256:12>.js`,
 * shared chunks keep esbuild's content-hashed `chunk-<hash>.js`. Served with
 * `Cache-Control: immutable` by the static middleware.
 *
 * Entries: the client boot, one per island (each island's module is loaded only on pages that
 * use it), and the SDK's two public modules (the `<cad-configurator>` element and the Preact
 * components for partners' own apps). One `deno bundle` call builds them all, so they share one
 * copy of preact, signals and three.js.
 *
 * The build runs once per set of sources: the inputs (islands/, lib/client/, lib/kernel/,
 * lib/web/islands*, deno.json, deno.lock) are hashed, and a `manifest-<hash>.json` in the output
 * folder short-circuits a rebuild — across processes too (test workers, restarts). Concurrent
 * builders write identical files and rename them into place atomically.
 */
import { join, relative } from "node:path";

/** What a build produced: URL paths under the site root. */
export interface IslandBuild {
  /** The client boot module. */
  boot: string;
  /** Island name → module URL. */
  modules: Record<string, string>;
  /** The `<cad-configurator>` custom element module. */
  embed: string;
  /** The Preact components and hooks for partners' apps. */
  sdk: string;
  /** The hash of the inputs this build came from. */
  inputHash: string;
  /** How long the build took (0 when reused). */
  ms: number;
}

/** Where the project lives and where the build goes. */
export interface BuildOptions {
  /** The project root (holds deno.json). */
  root: string;
  /** Island file paths relative to the root (`islands/Viewer.tsx`). */
  islands: string[];
  /** Output folder (default `<root>/static/build`). */
  outDir?: string;
  /** URL path the output folder is served at (default `/build`). */
  urlPrefix?: string;
}

const INPUT_DIRS = ["islands", "lib/client", "lib/kernel", "components"];
const INPUT_FILES = ["deno.json", "deno.lock"];

/**
 * Builds (or reuses) the bundles.
 *
 * @example
 * ```ts
 * const build = await buildIslands({ root, islands: ["islands/Configurator.tsx"] });
 * build.modules.Configurator; // "/build/Configurator-1a2b3c4d5e6f.js"
 * ```
 */
export async function buildIslands(options: BuildOptions): Promise<IslandBuild> {
  const root = options.root;
  const outDir = options.outDir ?? join(root, "static", "build");
  const prefix = options.urlPrefix ?? "/build";
  const inputHash = await hashInputs(root, options.islands);
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
    const entries: Record<string, string> = {
      boot: `import "${rel(src, join(root, "lib/web/islands_client.ts"))}";\n`,
      embed: `export * from "${rel(src, join(root, "lib/web/islands_embed.ts"))}";\n`,
      sdk: `export * from "${rel(src, join(root, "lib/web/islands_sdk.ts"))}";\n`,
    };
    const islandNames: string[] = [];
    for (const file of options.islands) {
      const name = file.split("/").at(-1)!.replace(/\.(tsx|ts)$/, "");
      islandNames.push(name);
      entries[`island_${name}`] = `export { default } from "${rel(src, join(root, file))}";\n`;
    }
    for (const [name, text] of Object.entries(entries)) {
      await Deno.writeTextFile(join(src, `${name}.ts`), text);
    }
    const cmd = new Deno.Command(Deno.execPath(), {
      args: [
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
        ...Object.keys(entries).map((n) => join(src, `${n}.ts`)),
      ],
      cwd: root,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    });
    const result = await cmd.output();
    if (!result.success) {
      throw new Error(`deno bundle failed:\n${new TextDecoder().decode(result.stderr)}`);
    }
    const urls: Record<string, string> = {};
    for await (const entry of Deno.readDir(out)) {
      if (!entry.isFile || !entry.name.endsWith(".js")) continue;
      const base = entry.name.slice(0, -3);
      const bytes = await Deno.readFile(join(out, entry.name));
      const target = Object.hasOwn(entries, base)
        ? `${base}-${(await sha256Hex(bytes)).slice(0, 12)}.js`
        : entry.name;
      if (Object.hasOwn(entries, base)) urls[base] = `${prefix}/${target}`;
      await Deno.rename(join(out, entry.name), join(outDir, target));
    }
    const modules: Record<string, string> = {};
    for (const name of islandNames) modules[name] = urls[`island_${name}`];
    const build: IslandBuild = {
      boot: urls.boot,
      embed: urls.embed,
      sdk: urls.sdk,
      modules,
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

/** A relative import specifier from `fromDir` to `file`. */
function rel(fromDir: string, file: string): string {
  const r = relative(fromDir, file);
  return r.startsWith(".") ? r : `./${r}`;
}

/** SHA-256 over the paths and contents of every input file. */
async function hashInputs(root: string, islands: readonly string[]): Promise<string> {
  const files: string[] = [];
  async function walk(dir: string): Promise<void> {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory) await walk(full);
      else if (e.isFile && /\.(ts|tsx|js|json)$/.test(e.name)) files.push(full);
    }
  }
  for (const d of INPUT_DIRS) await walk(join(root, d));
  for await (const e of Deno.readDir(join(root, "lib/web"))) {
    if (e.isFile && e.name.startsWith("islands")) files.push(join(root, "lib/web", e.name));
  }
  for (const f of INPUT_FILES) files.push(join(root, f));
  files.sort();
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode([...islands].sort().join("\n") + "\0")];
  for (const f of files) {
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

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

let current: Promise<IslandBuild> | undefined;

/**
 * The process's build of the app's islands (every `.tsx` in `islands/`), built on first call and
 * then shared. A failed build is not cached, so the next call tries again.
 */
export function appIslandBuild(): Promise<IslandBuild> {
  if (!current) {
    const root = new URL("../../", import.meta.url).pathname;
    current = (async () => {
      const files: string[] = [];
      for await (const e of Deno.readDir(join(root, "islands"))) {
        if (e.isFile && /^[A-Z][A-Za-z0-9]*\.tsx$/.test(e.name)) files.push(`islands/${e.name}`);
      }
      return await buildIslands({ root, islands: files.sort() });
    })();
    current.catch(() => (current = undefined));
  }
  return current;
}
