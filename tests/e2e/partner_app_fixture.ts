/**
 * Partner apps built with their own toolchains from the packed `@cad-configurator/sdk` tarball
 * (tests/e2e/partner_apps/): the Vite React-TS app is installed with npm from its committed
 * lockfile plus the tarball, then built with `tsc -b && vite build`; both apps are then served
 * from a second origin.
 *
 * Installs are bounded: the app lives in `data/partner-apps/vite_react-<hash of package.json and
 * package-lock.json>/`, whose third-party node_modules (`npm ci`) is reused until the lockfile
 * changes; each run only reinstalls the tarball (`npm install --no-save`). npm's own cache makes
 * repeated downloads local.
 */
import { join } from "node:path";

const FIXTURES = new URL("./partner_apps/", import.meta.url).pathname;
const CACHE = new URL("../../data/partner-apps/", import.meta.url).pathname;
const APP_FILES = [
  "package.json",
  "package-lock.json",
  "index.html",
  "tsconfig.json",
  "tsconfig.app.json",
  "tsconfig.node.json",
  "vite.config.ts",
  "src/main.tsx",
  "src/App.tsx",
  "src/vite-env.d.ts",
];

/** The output of one command. */
export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd` in `cwd`; throws with its output when it fails. */
export async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<CommandOutput> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { NO_COLOR: "1", npm_config_update_notifier: "false", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const result = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
  if (!out.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} (in ${cwd}) failed:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The Vite React-TS app's folder with the SDK tarball installed (third-party packages from the
 * cache when the lockfile is unchanged).
 */
export async function installViteApp(tarball: string): Promise<string> {
  const src = join(FIXTURES, "vite_react");
  const lock = await Deno.readTextFile(join(src, "package-lock.json"));
  const manifest = await Deno.readTextFile(join(src, "package.json"));
  const dir = join(CACHE, `vite_react-${(await sha256Hex(manifest + "\0" + lock)).slice(0, 16)}`);
  await Deno.mkdir(join(dir, "src"), { recursive: true });
  for (const f of APP_FILES) await Deno.copyFile(join(src, f), join(dir, f));
  await Deno.remove(join(dir, "dist"), { recursive: true }).catch(() => {});
  const ready = join(dir, "node_modules", ".third-party-installed");
  try {
    await Deno.stat(ready);
  } catch {
    await sh("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], dir);
    await Deno.writeTextFile(ready, new Date().toISOString());
  }
  await sh("npm", [
    "install",
    "--no-save",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    tarball,
  ], dir);
  return dir;
}

/** The plain HTML page that uses `<cad-configurator>`, with the hub and key filled in. */
export async function elementPage(hubUrl: string, keyId: string): Promise<string> {
  const html = await Deno.readTextFile(join(FIXTURES, "element_page", "index.html"));
  return html.replaceAll("{{HUB_URL}}", hubUrl).replaceAll("{{KEY_ID}}", keyId);
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * Serves the partner's site on `port`: the Vite build at `/`, the plain element page at
 * `/plain.html`, and the package's standalone `dist/element.js` at `/vendor/cad-configurator/`.
 */
export function servePartnerSite(
  options: { port: number; viteDist: string; elementHtml: string; elementJs: string },
): Deno.HttpServer {
  return Deno.serve({ hostname: "127.0.0.1", port: options.port, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    let file: string;
    if (path === "/plain.html") {
      return new Response(options.elementHtml, { headers: { "content-type": TYPES[".html"] } });
    } else if (path === "/vendor/cad-configurator/element.js") {
      file = options.elementJs;
    } else if (path === "/" || path === "/index.html") {
      file = join(options.viteDist, "index.html");
    } else if (/^\/assets\/[\w.-]+$/.test(path)) {
      file = join(options.viteDist, path);
    } else {
      return new Response("not found", { status: 404 });
    }
    try {
      const body = await Deno.readFile(file);
      const type = TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}
