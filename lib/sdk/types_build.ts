/**
 * TypeScript declarations of the SDK modules the hub serves (`/sdk/v1/embed.js`,
 * `/sdk/v1/preact.js`), for the `X-TypeScript-Types` header of those modules. TypeScript's `tsc`
 * (npm, pinned) emits them with `--emitDeclarationOnly` into
 * `static/build/types-<hash>/` once per set of sources — the hash is the island build's input
 * hash, whose module graph holds these entries — and relative `.ts` specifiers become `.d.ts`
 * so each file resolves its neighbours by URL. Bare specifiers (`preact`, `three`,
 * `@preact/signals-core`) stay as they are: the consumer's import map or node_modules provides
 * them. The npm package `@cad-configurator/sdk` ships the same declarations (packages/sdk).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The pinned TypeScript compiler. */
const TSC = "npm:typescript@6.0.3/tsc";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where the declarations are built (next to the island bundles). */
export const SDK_TYPES_ROOT = join(ROOT, "static", "build");

/** The declaration file of each SDK module, relative to the types folder. */
export const SDK_TYPES: Readonly<Record<"embed" | "sdk", string>> = {
  embed: "lib/sdk/embed_shell.d.ts",
  sdk: "lib/sdk/preact_entry.d.ts",
};

/** Turns a declaration's relative `.ts`/`.tsx` specifiers into `.d.ts` ones. */
export function declarationSpecifiers(text: string): string {
  return text.replace(
    /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+?)\.tsx?(["'])/g,
    "$1$2.d.ts$3",
  );
}

async function emit(outDir: string): Promise<void> {
  await Deno.mkdir(join(outDir, ".."), { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: join(outDir, ".."), prefix: ".tmp-types-" });
  try {
    const config = join(tmp, "tsconfig.json");
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        compilerOptions: {
          rootDir: ROOT,
          outDir: join(tmp, "out"),
          declaration: true,
          emitDeclarationOnly: true,
          allowImportingTsExtensions: true,
          target: "es2022",
          module: "esnext",
          moduleResolution: "bundler",
          lib: ["es2023", "dom", "dom.iterable"],
          types: [],
          strict: true,
          skipLibCheck: true,
          jsx: "react-jsx",
          jsxImportSource: "preact",
        },
        files: Object.values(SDK_TYPES).map((f) => join(ROOT, f.replace(/\.d\.ts$/, ".ts"))),
      }),
    );
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", TSC, "-p", config],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!result.success) {
      const text = new TextDecoder().decode(result.stdout) +
        new TextDecoder().decode(result.stderr);
      throw new Error(`tsc failed to emit the SDK declarations:\n${text}`);
    }
    await rewrite(join(tmp, "out"));
    // Concurrent builders write identical files; the first rename wins.
    await Deno.rename(join(tmp, "out"), outDir).catch(async (err) => {
      if (!(await exists(outDir))) throw err;
    });
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

async function rewrite(dir: string): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) await rewrite(path);
    else if (e.name.endsWith(".d.ts")) {
      await Deno.writeTextFile(path, declarationSpecifiers(await Deno.readTextFile(path)));
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

const builds = new Map<string, Promise<string>>();

/**
 * The folder of the declarations for `hash` (built on first call, then shared in this process
 * and reused across processes from `outRoot`). A failed build is not kept.
 *
 * @example
 * ```ts
 * const dir = await sdkTypes("0123456789abcdef");
 * await Deno.readTextFile(`${dir}/${SDK_TYPES.embed}`);
 * ```
 */
export function sdkTypes(hash: string, outRoot: string = SDK_TYPES_ROOT): Promise<string> {
  const outDir = join(outRoot, `types-${hash}`);
  let build = builds.get(outDir);
  if (!build) {
    build = exists(outDir).then(async (done) => {
      if (!done) await emit(outDir);
      return outDir;
    });
    build.catch(() => builds.delete(outDir));
    builds.set(outDir, build);
  }
  return build;
}
