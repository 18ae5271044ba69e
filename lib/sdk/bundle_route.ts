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
  const url = new URL(build.entries[which], origin).href;
  const types = `${origin}/sdk/v1/types/${build.inputHash}/${SDK_TYPES[which]}`;
  // The start module comes first: it runs once the bundle has arrived and before it runs, and
  // starts the chunks the bundle's lazy parts need (three.js for the view), so they download
  // while the bundle runs; failures surface where the part is loaded. The chunks the bundle
  // imports come next, so the browser asks for them with the bundle instead of after it.
  // `export *` also evaluates the bundle, which defines <cad-configurator>: still before the
  // page's DOMContentLoaded, as for any deferred module script.
  const start = build.entryStarts?.[which];
  const body = [...(start ? [start] : []), ...(build.entryImports[which] ?? [])]
    .map((chunk) => `import ${JSON.stringify(new URL(chunk, origin).href)};\n`)
    .join("") +
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
