/**
 * Gzip content coding for static assets that are served many times and change only with a deploy
 * (the Python fallback's runtime files): whether a request accepts gzip (RFC 9110 §12.5.3), and
 * compressing bytes once per process off the event loop (`node:zlib` runs it on a thread pool).
 */
import { gzip } from "node:zlib";

/**
 * Whether an `Accept-Encoding` value accepts `gzip` (or `x-gzip`, or `*`) with a non-zero weight.
 *
 * @example
 * ```ts
 * acceptsGzip("gzip, deflate, br"); // true
 * acceptsGzip("gzip;q=0, br"); // false
 * ```
 */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  if (!acceptEncoding) return false;
  let star: boolean | undefined;
  for (const item of acceptEncoding.split(",")) {
    const [coding, ...params] = item.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const accepted = Number.isFinite(weight) && weight > 0;
    const name = coding.trim();
    if (name === "gzip" || name === "x-gzip") return accepted;
    if (name === "*") star = accepted;
  }
  return star === true;
}

/**
 * Gzip (level 9) of `bytes`.
 *
 * @example
 * ```ts
 * const packed = await gzipBytes(new TextEncoder().encode("hello hello hello"));
 * ```
 */
export function gzipBytes(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    gzip(bytes, { level: 9 }, (err, out) => {
      if (err) reject(err);
      else resolve(new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength));
    });
  });
}
