/**
 * The SDK's stable module URLs (`/sdk/v1/embed.js`, `/sdk/v1/preact.js`): each answers a tiny
 * module that re-exports the content-hashed build by absolute URL. The stable file revalidates
 * (short max-age); the bundle it points at is immutable. Readable from any origin: these are
 * public scripts, loaded cross-origin as module scripts (which need CORS). `X-TypeScript-Types`
 * names the module's declarations (served by lib/sdk/types_route.ts under the same build hash).
 *
 * `SDK_BUNDLES` names the modules the app adds to the islands' build (lib/app wires them in): each
 * is bundled on its own (lib/web/islands_build.ts), so a partner's page loads the element in a few
 * requests (this module, then the bundle and its chunks together), not in a waterfall of chunks
 * shared with the pages; three.js, which the view loads lazily, is started before the bundle runs.
 */
import type { Context } from "hono";
import { fileURLToPath } from "node:url";
import { islandBuildOf } from "../web/islands_build.ts";
import { SDK_TYPES } from "./types_build.ts";
import { leanResponse } from "../http/lean_response.ts";

/** The SDK's bundles, built with the islands: entry name → module file. */
export const SDK_BUNDLES: Readonly<Record<"embed" | "sdk" | "shell", string>> = {
  /** The `<cad-configurator>` custom element. */
  embed: fileURLToPath(new URL("./embed_element.ts", import.meta.url)),
  /** The Preact components and hooks for partners' apps. */
  sdk: fileURLToPath(new URL("./preact_entry.ts", import.meta.url)),
  /** The element and its early requests (lib/sdk/embed_shell.ts), inlined into `embed.js`. */
  shell: fileURLToPath(new URL("./embed_shell.ts", import.meta.url)),
};

/** The name `embed.js` gives the element's bundle for the inlined shell (lib/sdk/embed_shell.ts). */
export const EMBED_BUNDLE_NAME = "__CAD_CONFIGURATOR_BUNDLE__";

/** CORS headers for the SDK's public modules (no credentials, any origin). */
export const PUBLIC_MODULE_CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
};

/** The stable module for `which` (or the answer to a preflight). */
export async function sdkModuleResponse(
  ctx: Context,
  which: "embed" | "sdk" | "preflight",
): Promise<Response> {
  if (which === "preflight") {
    return new Response(null, {
      status: 204,
      headers: { ...PUBLIC_MODULE_CORS, "access-control-allow-methods": "GET" },
    });
  }
  const build = await islandBuildOf(ctx);
  const origin = new URL(ctx.req.url).origin;
  const url = new URL(build.entries[which], origin).href;
  const types = `${origin}/sdk/v1/types/${build.inputHash}/${SDK_TYPES[which]}`;
  const href = (path: string) => JSON.stringify(new URL(path, origin).href);
  const imports = (build.entryImports[which] ?? []).map(href);
  // The start module starts the chunks the bundle's lazy parts need (three.js for the view): asked
  // for with the bundle, it arrives before it and three.js follows, so the bundle, which the
  // configurator waits for, does not share a shopper's bandwidth with three.js from its first
  // byte (docs/performance.md, thirteenth and twenty-sixth sessions). Failures surface where the
  // part is loaded. The chunks the bundle imports come with it.
  const start = build.entryStarts?.[which];
  const chunks = [...(start ? [href(start)] : []), ...imports];
  const body = which === "embed"
    ? embedModule(await builtText(build.entries.shell), chunks, url)
    : chunks.map((chunk) => `import ${chunk};\n`).join("") +
      `export * from ${JSON.stringify(url)};\n`;
  return leanResponse(body, {
    headers: {
      ...PUBLIC_MODULE_CORS,
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=300",
      // Deno and editors fetch the module's declarations from here (lib/sdk/types_route.ts).
      "x-typescript-types": types,
      "access-control-expose-headers": "X-TypeScript-Types",
    },
  });
}

/** Where the build's files are (the app serves `static/` at `/`). */
const STATIC_DIR = new URL("../../static", import.meta.url);

/** Built files' texts by URL path (content-hashed names: a path's text never changes). */
const texts = new Map<string, Promise<string>>();

/** The text of the built file at `path` (`/build/…`), read once. */
function builtText(path: string): Promise<string> {
  let text = texts.get(path);
  if (!text) {
    text = Deno.readTextFile(new URL(`.${path}`, `${STATIC_DIR.href}/`));
    text.catch(() => texts.delete(path));
    texts.set(path, text);
  }
  return text;
}

/**
 * The stable `embed.js`: the element's bundle named for the shell, the shell's code (its bundle,
 * inline, whose closing `export` is this module's: `CadConfiguratorElement`), then the bundle and
 * its chunks asked for at once. So as soon as this module has arrived, the element's early
 * requests leave and `<cad-configurator>` is defined; no static import holds it back. A module's
 * static imports all arrive before any of them runs: the early requests would wait for the
 * bundle, and a module of their own would cost a round trip. A failed chunk surfaces where it is
 * imported.
 */
function embedModule(shell: string, chunks: string[], bundle: string): string {
  return `const ${EMBED_BUNDLE_NAME} = ${JSON.stringify(bundle)};\n` +
    `${shell.trim()}\n` +
    [`import(${EMBED_BUNDLE_NAME})`, ...chunks.map((chunk) => `import(${chunk})`)]
      .map((load) => `${load}.catch(() => {});\n`).join("");
}
