/**
 * The SDK's stable module URLs (`/sdk/v1/embed.js`, `/sdk/v1/preact.js`): each answers a tiny
 * module that re-exports the content-hashed build by absolute URL. The stable file revalidates
 * (short max-age); the bundle it points at is immutable. Readable from any origin: these are
 * public scripts, loaded cross-origin as module scripts (which need CORS). `X-TypeScript-Types`
 * names the module's declarations (served by lib/sdk/types_route.ts under the same build hash).
 *
 * `SDK_BUNDLES` names the modules the app adds to the islands' build (lib/app wires them in): each
 * is bundled on its own (lib/web/islands_build.ts), so a partner's page loads the element in a few
 * requests (this module, then the bundle, its chunks and three.js, which the view loads lazily,
 * together), not in a waterfall of chunks shared with the pages.
 */
import type { Context } from "hono";
import { fileURLToPath } from "node:url";
import { islandBuildOf } from "../web/islands_build.ts";
import { SDK_TYPES } from "./types_build.ts";
import { leanResponse } from "../http/lean_response.ts";

/** The SDK's bundles, built with the islands: entry name → module file. */
export const SDK_BUNDLES: Readonly<Record<"embed" | "sdk", string>> = {
  /** The `<cad-configurator>` custom element. */
  embed: fileURLToPath(new URL("./embed_element.ts", import.meta.url)),
  /** The Preact components and hooks for partners' apps. */
  sdk: fileURLToPath(new URL("./preact_entry.ts", import.meta.url)),
};

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
  const href = (path: string) => new URL(path, origin).href;
  const url = href(build.entries[which]);
  const types = `${origin}/sdk/v1/types/${build.inputHash}/${SDK_TYPES[which]}`;
  const imports = (build.entryImports[which] ?? []).map(href);
  const preloads = (build.entryPreloads?.[which] ?? []).map(href);
  const body = stableModule(url, imports, preloads, build.entryExports?.[which]);
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

/**
 * The stable module's source for the bundle at `bundle` (absolute URLs throughout): `imports` are
 * the chunks the bundle imports, `preloads` those its lazy parts need (three.js for the view).
 *
 * With the bundle's export `names` known, it asks for the bundle, its chunks and the lazy parts'
 * chunks all at once, as soon as it runs, and re-exports the names once the bundle has run
 * (top-level `await`: a module importing this one sees them defined). three.js then downloads
 * beside the bundle instead of after it. Without them (a bundle exporting a name a `const` cannot
 * bind), it imports the chunks statically beside the bundle, `export *`s the bundle, then starts
 * the lazy parts' chunks once the bundle has run. Failures of the lazy chunks surface where the
 * part is loaded.
 *
 * @example
 * ```ts
 * stableModule("https://hub/build/embed-1a2b.js", [], ["https://hub/build/chunk-T.js"], ["X"]);
 * // for (const c of ["https://hub/build/chunk-T.js"]) import(c).catch(() => {});
 * // const m = await import("https://hub/build/embed-1a2b.js");
 * // export const { X } = m;
 * ```
 */
export function stableModule(
  bundle: string,
  imports: readonly string[],
  preloads: readonly string[],
  names?: readonly string[],
): string {
  if (names?.length) {
    return `for (const c of ${JSON.stringify([...imports, ...preloads])}) ` +
      `import(c).catch(() => {});\n` +
      `const m = await import(${JSON.stringify(bundle)});\n` +
      `export const { ${names.join(", ")} } = m;\n`;
  }
  return imports.map((chunk) => `import ${JSON.stringify(chunk)};\n`).join("") +
    `export * from ${JSON.stringify(bundle)};\n` +
    (preloads.length
      ? `for (const c of ${JSON.stringify(preloads)}) import(c).catch(() => {});\n`
      : "");
}
