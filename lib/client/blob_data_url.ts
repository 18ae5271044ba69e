/**
 * A `Blob` as a `data:` URL, in a module of its own: `<cad-configurator>`'s `snapshotDataUrl`
 * needs it in the small code `embed.js` runs before the configurator's bundle, which must not
 * reach the snapshot's lazy drawing code (lib/client/snapshot.ts).
 *
 * Runs in browsers: no Deno APIs here.
 */

/**
 * A `data:image/png;base64,…` URL of a snapshot (for an `<img>`, or a JSON body to the cart).
 *
 * @example
 * ```ts
 * img.src = await blobToDataUrl(await renderSnapshot(result));
 * ```
 */
export function blobToDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}
