/** Regenerates the route manifest (`deno task manifest`; also run by `deno task dev`). */
import { generateManifest, MANIFEST_FILE } from "./lib/web/manifest.ts";

const root = new URL(".", import.meta.url).pathname;
const text = await generateManifest(root);
await Deno.writeTextFile(root + MANIFEST_FILE, text);
console.log(`wrote ${MANIFEST_FILE}`);
