/**
 * Builds `@cad-configurator/sdk` into `packages/sdk/dist/` and packs it with `npm pack`
 * (`deno task sdk:pack`). Reproducible from a clean clone: every tool comes through Deno's npm
 * support at the versions of deno.json / deno.lock (`deno bundle` for the JavaScript, TypeScript's
 * `tsc` for the declarations), and the output is gitignored.
 *
 * - `index.js`, `react.js`, `preact.js`: one `deno bundle` with code splitting, so the three share
 *   one copy of the core (one `SessionClient` class, one render client). `react`, `preact`,
 *   `three` and `@preact/signals-core` stay imports: the first two are peer dependencies (the
 *   app's own), the last two dependencies npm installs with the package. `@preact/signals` (the
 *   Preact binding) is bundled into the Preact side.
 * - `element.js`: standalone (preact, three and everything else inside, minified), so a page
 *   without a bundler loads it with one `<script type="module">`.
 * - Declarations: `tsc --emitDeclarationOnly` over the entries, relative `.ts` specifiers turned
 *   into `.js`, then checked by compiling a React and a Preact consumer against them.
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const PKG = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = join(PKG, "..", "..");
const DIST = join(PKG, "dist");
const WORK = join(PKG, ".build");
const TSC = "npm:typescript@6.0.3/tsc";
const EXTERNAL = ["react", "react/*", "react-dom", "preact", "preact/*", "three", "three/*"];
const SHARED_EXTERNAL = [...EXTERNAL, "@preact/signals-core"];

/** What `packSdk` produced. */
export interface PackResult {
  /** Absolute path of the `.tgz`. */
  tarball: string;
  /** Size of the `.tgz` (gzip) in bytes. */
  size: number;
  /** Size of the unpacked files in bytes. */
  unpackedSize: number;
  /** Files in the tarball. */
  files: number;
}

async function run(cmd: string, args: string[], cwd = ROOT): Promise<string> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed:\n${text}\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text;
}

/** Entry stubs in one folder, so `deno bundle` names its outputs after them. */
async function stubs(dir: string, entries: Record<string, string>): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const [name, source] of Object.entries(entries)) {
    const file = join(dir, `${name}.ts`);
    await Deno.writeTextFile(file, `export * from ${JSON.stringify(join(PKG, source))};\n`);
    files.push(file);
  }
  return files;
}

function bundleArgs(external: string[]): string[] {
  return [
    "bundle",
    "--quiet",
    "--platform",
    "browser",
    "--format",
    "esm",
    ...external.flatMap((e) => ["--external", e]),
  ];
}

/** Rewrites a declaration file's relative `.ts`/`.tsx` specifiers to `.js`. */
function jsSpecifiers(text: string): string {
  return text
    .replace(/((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+?)\.tsx?(["'])/g, "$1$2.js$3")
    .replaceAll('"@preact/signals"', '"@preact/signals-core"');
}

async function copyDeclarations(from: string, to: string): Promise<void> {
  for await (const e of Deno.readDir(from)) {
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory) {
      await Deno.mkdir(dst, { recursive: true });
      await copyDeclarations(src, dst);
    } else if (e.name.endsWith(".d.ts")) {
      await Deno.writeTextFile(dst, jsSpecifiers(await Deno.readTextFile(src)));
    }
  }
}

const REACT_CONSUMER = `
import { StrictMode, useState } from "react";
import { SessionClient, type RenderResult, substitute } from "@cad-configurator/sdk";
import { Configurator, ConfiguratorProvider, ParameterForm, useRender, useSession, Viewer } from "@cad-configurator/sdk/react";
import type { CadConfiguratorElement } from "@cad-configurator/sdk/element";
function Hooks() {
  const { tokenStatus, refreshSessionToken } = useSession();
  const { status, result, project, render } = useRender();
  const [v, setV] = useState<Record<string, unknown>>({});
  const r: RenderResult | null = result;
  void refreshSessionToken; void substitute; void SessionClient; void r;
  return <div data-s={tokenStatus.state + status}>
    <Viewer result={result} loading={status === "rendering"} />
    {project?.schema && <ParameterForm schema={project.schema} values={v}
      onChange={(n, x) => { setV({ ...v, [n]: x }); render({ ...v, [n]: x }); }} />}
  </div>;
}
export const app = <StrictMode>
  <ConfiguratorProvider keyId="k" projectKey="p" hubBaseUrl="https://hub"><Hooks /></ConfiguratorProvider>
  <Configurator keyId="k" projectKey="p" onEvent={(e) => e.type === "rendered" && e.result.dagHash} />
  <cad-configurator key-id="k" project="p" hub-url="https://hub" compact />
</StrictMode>;
const el: CadConfiguratorElement | null = document.querySelector("cad-configurator");
el?.addEventListener("cad-rendered", (e) => e.detail.result.dagHash.toUpperCase());
`;

const PREACT_CONSUMER = `
import { render } from "preact";
import { Configurator, useRender, useSession } from "@cad-configurator/sdk/preact";
import "@cad-configurator/sdk/element";
function Hooks() {
  const { tokenStatus } = useSession();
  const { status } = useRender();
  return <p>{tokenStatus.state} {status}</p>;
}
render(<div><Configurator keyId="k" projectKey="p" /><Hooks />
  <cad-configurator key-id="k" project="p" hub-url="https://hub" /></div>, document.body);
`;

/** Compiles a consumer of the built declarations with `tsc` (library checks on). */
async function checkConsumer(name: string, source: string, jsxImportSource: string) {
  const dir = join(WORK, `check-${name}`);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "app.tsx"), source);
  const paths: Record<string, string[]> = {};
  for (const entry of ["", "/react", "/preact", "/element"]) {
    paths[`@cad-configurator/sdk${entry}`] = [join(DIST, `${entry.slice(1) || "index"}.d.ts`)];
  }
  await Deno.writeTextFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        noEmit: true,
        strict: true,
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        lib: ["es2023", "dom", "dom.iterable"],
        types: [],
        jsx: "react-jsx",
        jsxImportSource,
        paths,
        // The package's own declarations are checked; third-party libraries' are theirs.
        skipLibCheck: false,
        skipDefaultLibCheck: true,
      },
      files: ["app.tsx"],
    }),
  );
  await run(Deno.execPath(), ["run", "-A", TSC, "-p", join(dir, "tsconfig.json")]);
}

/** Builds `dist/` (JavaScript, declarations, checks). */
export async function buildSdk(): Promise<void> {
  await Deno.remove(DIST, { recursive: true }).catch(() => {});
  await Deno.remove(WORK, { recursive: true }).catch(() => {});
  const shared = await stubs(join(WORK, "shared"), {
    index: "src/index.ts",
    react: "src/react/mod.ts",
    preact: "src/preact.ts",
  });
  await run(Deno.execPath(), [
    ...bundleArgs(SHARED_EXTERNAL),
    "--code-splitting",
    "--outdir",
    DIST,
    ...shared,
  ]);
  const [element] = await stubs(join(WORK, "standalone"), { element: "src/element.ts" });
  await run(Deno.execPath(), [
    ...bundleArgs([]),
    "--minify",
    "--output",
    join(DIST, "element.js"),
    element,
  ]);
  // Declarations.
  await run(Deno.execPath(), ["run", "-A", TSC, "-p", join(PKG, "tsconfig.build.json")]);
  await Deno.mkdir(join(DIST, "types"), { recursive: true });
  await copyDeclarations(join(WORK, "types"), join(DIST, "types"));
  const typesOf = (src: string) =>
    "./" +
    relative(DIST, join(DIST, "types", relative(ROOT, join(PKG, src)))).replace(/\.ts$/, ".js");
  for (
    const [name, src] of [
      ["index", "src/index.ts"],
      ["react", "src/react/mod.ts"],
      ["preact", "src/preact.ts"],
      ["element", "src/element.ts"],
    ]
  ) {
    const lines = [`export * from "${typesOf(src)}";`];
    if (name === "element") lines.push(`export type * from "./element-jsx.js";`);
    await Deno.writeTextFile(join(DIST, `${name}.d.ts`), lines.join("\n") + "\n");
  }
  const jsx = await Deno.readTextFile(join(PKG, "src", "element_jsx.d.ts"));
  await Deno.writeTextFile(
    join(DIST, "element-jsx.d.ts"),
    jsx.replace('"./element.ts"', `"${typesOf("src/element.ts")}"`)
      .replace('"./index.ts"', `"${typesOf("src/index.ts")}"`),
  );
  await checkConsumer("react", REACT_CONSUMER, "react");
  await checkConsumer("preact", PREACT_CONSUMER, "preact");
}

/** Builds and packs the package; the tarball lands in `packages/sdk/`. */
export async function packSdk(): Promise<PackResult> {
  await buildSdk();
  const out = await run("npm", ["pack", "--json", "--loglevel=error"], PKG);
  const [info] = JSON.parse(out) as Array<
    { filename: string; size: number; unpackedSize: number; entryCount: number }
  >;
  return {
    tarball: join(PKG, info.filename),
    size: info.size,
    unpackedSize: info.unpackedSize,
    files: info.entryCount,
  };
}

if (import.meta.main) {
  const result = await packSdk();
  console.log(
    `${relative(Deno.cwd(), result.tarball)}: ${result.size} bytes gzip, ` +
      `${result.unpackedSize} bytes unpacked, ${result.files} files`,
  );
}
