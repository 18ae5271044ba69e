/**
 * Base64 decoding for the browser SDK: the native `Uint8Array.fromBase64` where the engine has it
 * (fast, no intermediate string), else `atob`, which every browser has. Meshes arrive as standard
 * base64; token payloads as base64url.
 *
 * Runs in browsers: no Deno APIs here.
 */

type FromBase64 = (text: string, options?: { alphabet?: "base64" | "base64url" }) => Uint8Array;

const nativeFromBase64 = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;

/**
 * Decodes base64 (or base64url with `url: true`) into a fresh, zero-offset buffer; padding is
 * optional. Throws `SyntaxError`/`DOMException` on characters outside the alphabet.
 *
 * @example
 * ```ts
 * decodeBase64("AAABAA=="); // Uint8Array [0, 0, 1, 0]
 * decodeBase64("-_8", { url: true }); // Uint8Array [251, 255]
 * ```
 */
export function decodeBase64(
  text: string,
  options: { url?: boolean; native?: boolean } = {},
): Uint8Array<ArrayBuffer> {
  if (nativeFromBase64 && options.native !== false) {
    const bytes = nativeFromBase64(text, { alphabet: options.url ? "base64url" : "base64" });
    return bytes as Uint8Array<ArrayBuffer>;
  }
  let base64 = options.url ? text.replace(/-/g, "+").replace(/_/g, "/") : text;
  base64 += "=".repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
