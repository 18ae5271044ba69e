/** Regenerates the route manifest (`deno task manifest`; also run by `deno task dev`). */
import { APP_MANIFEST_TYPES } from "./lib/app/context.ts";
import { generateManifest, MANIFEST_FILE } from "./lib/web/manifest.ts";

const root = new URL(".", import.meta.url).pathname;
const text = await generateManifest(root, APP_MANIFEST_TYPES);
await Deno.writeTextFile(root + MANIFEST_FILE, text);
console.log(`wrote ${MANIFEST_FILE}`);
