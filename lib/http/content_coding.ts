/**
 * Content coding (RFC 9110 §8.4, §12.5.3): which coding a request's `Accept-Encoding` lets us
 * send — brotli preferred, then gzip — and compressing bytes in it. Responses that vary by coding
 * must say `Vary: Accept-Encoding`, and an ETag must differ per coding (a strong validator names
 * exact bytes).
 *
 * Two effort levels: `static` for bytes compressed once and served many times (SDK bundles,
 * islands, docs: brotli quality 11, gzip 9), `dynamic` for bytes compressed per response or per
 * cache entry (render responses, API JSON, pages: brotli quality 5, gzip 6), where the time to
 * compress is paid while a shopper waits.
 */
import zlib from "node:zlib";
import { compressOffThread } from "./compression_worker.ts";
import { headerMemo } from "./header_memo.ts";

/** A content coding this server can send. */
export type ContentCoding = "br" | "gzip";

/** How hard to compress: once per deploy, or once per response. */
export type CompressionEffort = "static" | "dynamic";

/** Our order of preference when the client weighs codings equally. */
const PREFERENCE: readonly ContentCoding[] = ["br", "gzip"];

/**
 * The coding to send for an `Accept-Encoding` value, or null for identity: the client's highest
 * non-zero weight among `offered` wins, ties go to brotli; `*` covers codings it does not name;
 * `x-gzip` means gzip.
 *
 * @example
 * ```ts
 * negotiateContentCoding("gzip, deflate, br"); // "br"
 * negotiateContentCoding("br;q=0.5, gzip"); // "gzip"
 * negotiateContentCoding("identity"); // null
 * ```
 */
export function negotiateContentCoding(
  acceptEncoding: string | null | undefined,
  offered: readonly ContentCoding[] = PREFERENCE,
): ContentCoding | null {
  return acceptedCodings(acceptEncoding).find((coding) => offered.includes(coding)) ?? null;
}

/**
 * Every coding this server can send that an `Accept-Encoding` value accepts, best first (the
 * client's weights, ties in our preference): what `negotiateContentCoding` chooses from, for a
 * caller that needs more than the first (one parse of the header).
 *
 * @example
 * ```ts
 * acceptedCodings("gzip, br;q=0.8"); // ["gzip", "br"]
 * acceptedCodings("br, gzip;q=0"); // ["br"]
 * ```
 */
export function acceptedCodings(
  acceptEncoding: string | null | undefined,
): readonly ContentCoding[] {
  return acceptEncoding ? parsedAcceptEncoding(acceptEncoding) : [];
}

// Parsed once per distinct value (lib/http/header_memo.ts); the lists are frozen, being shared.
const parsedAcceptEncoding = headerMemo((acceptEncoding): readonly ContentCoding[] => {
  const weights = new Map<string, number>();
  for (const item of acceptEncoding.split(",")) {
    const [coding, ...params] = item.trim().toLowerCase().split(";");
    const name = coding.trim() === "x-gzip" ? "gzip" : coding.trim();
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) && weight >= 0 && weight <= 1 ? weight : 0);
  }
  const weight = (coding: ContentCoding) => weights.get(coding) ?? weights.get("*") ?? 0;
  // A stable sort: equal weights keep PREFERENCE's order.
  return Object.freeze(
    PREFERENCE.filter((coding) => weight(coding) > 0).sort((a, b) => weight(b) - weight(a)),
  );
});

/**
 * The brotli window (`BROTLI_PARAM_LGWIN`, 17–24) for a body of `size` bytes: the smallest whose
 * window (2^bits − 16 bytes) holds the whole body, and at least 17 bits. A window larger than the
 * body compresses no better, but a decoder of a stream that is not one last meta-block (a flushed
 * render prefix, a body of several meta-blocks) may allocate its ring buffer at the declared
 * window: at brotli's default of 22 bits, 4 MiB per response, which cost Deno's fetch about
 * 0.27 ms more per 8 KB render answer than 15–18 bits did. Below 17 bits brotli's encoder picks
 * its forgetful-chain hashers at qualities 5–9, whose set-up costs ~2 ms per call even for a few
 * kilobytes (against ~0.2 ms at 17 bits), so 17 is the floor (docs/performance.md).
 *
 * @example
 * ```ts
 * brotliWindowBits(5_000); // 17
 * brotliWindowBits(1_000_000); // 20
 * ```
 */
export function brotliWindowBits(size: number): number {
  return Math.min(24, Math.max(17, Math.ceil(Math.log2(size + 16))));
}

/**
 * The brotli parameters every coder here uses for `size` bytes at `quality`: the quality, the size
 * as a hint, and the window of `brotliWindowBits`.
 *
 * @example
 * ```ts
 * zlib.brotliCompressSync(bytes, { params: brotliParams(5, bytes.byteLength) });
 * ```
 */
export function brotliParams(quality: number, size: number): Record<number, number> {
  return {
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
    [zlib.constants.BROTLI_PARAM_LGWIN]: brotliWindowBits(size),
  };
}

function options(coding: ContentCoding, effort: CompressionEffort, size: number): zlib.ZlibOptions {
  if (coding === "gzip") return { level: effort === "static" ? 9 : 6 };
  return { params: brotliParams(effort === "static" ? 11 : 5, size) } as zlib.ZlibOptions;
}

function view(out: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
}

/**
 * `bytes` compressed in `coding`, on the calling thread: for small bodies, where handing the work
 * to the compression thread costs more than it saves.
 *
 * @example
 * ```ts
 * compressSync(new TextEncoder().encode("{}"), "br", "dynamic");
 * ```
 */
export function compressSync(
  bytes: Uint8Array,
  coding: ContentCoding,
  effort: CompressionEffort,
): Uint8Array<ArrayBuffer> {
  const opts = options(coding, effort, bytes.byteLength);
  return view(
    coding === "br" ? zlib.brotliCompressSync(bytes, opts) : zlib.gzipSync(bytes, opts),
  );
}

/**
 * `bytes` compressed in `coding` on the compression thread (`compression_worker.ts`), off the
 * event loop: Deno's `node:zlib` callbacks compress on the calling thread.
 *
 * @example
 * ```ts
 * const packed = await compress(bundleBytes, "br", "static");
 * ```
 */
export function compress(
  bytes: Uint8Array,
  coding: ContentCoding,
  effort: CompressionEffort,
): Promise<Uint8Array<ArrayBuffer>> {
  const quality = coding === "gzip"
    ? (effort === "static" ? 9 : 6)
    : (effort === "static" ? 11 : 5);
  return compressOffThread(bytes, { coding, quality });
}

/**
 * The ETag of a coded representation: the identity ETag with `-br` or `-gz` inside the quotes
 * (weak prefix kept), so caches never mix the bytes of two codings.
 *
 * @example
 * ```ts
 * codedEtag('"abc"', "br"); // '"abc-br"'
 * codedEtag('W/"abc"', null); // 'W/"abc"'
 * ```
 */
export function codedEtag(etag: string, coding: ContentCoding | null): string {
  if (coding === null) return etag;
  return `${etag.slice(0, -1)}-${coding === "br" ? "br" : "gz"}"`;
}
