/**
 * A response body compressed once and finished per request: the bytes every request of a scene
 * shares (the prefix) are compressed when first needed, and each response appends its own few
 * bytes (the tail: budget, cache level, …) without compressing anything again.
 *
 * - brotli: the prefix is compressed with a flush instead of a finish, which leaves the stream
 *   byte-aligned and unfinished (RFC 7932 §9.2); the tail follows as uncompressed meta-blocks
 *   (§9.2, ISUNCOMPRESSED; they use no distances, so nothing before them changes meaning) and an
 *   empty last meta-block ends the stream.
 * - gzip: the prefix is raw deflate ended by a sync flush (byte-aligned, not final); the tail is a
 *   final stored block (RFC 1951 §3.2.4), then the gzip trailer (CRC-32 of all the bytes, carried
 *   on from the prefix's, and the length) (RFC 1952).
 *
 * The cost per response is a copy of the compressed prefix and a CRC of the tail.
 */
import zlib from "node:zlib";
import { brotliParams, type ContentCoding } from "../http/content_coding.ts";
import { compressOffThread } from "../http/compression_worker.ts";

/**
 * brotli quality of a cached prefix, the one the miss that makes it pays for. Measured on the
 * vase's binary response (23 KB, issue 15): q5 13,092 B / q6 13,069 B in about 1 ms; q7–q9
 * 13.0–13.8 KB (worse on meshopt bytes behind a JSON head) in 10–60 ms; q10–q11 12.3–12.5 KB in
 * 50–150 ms, too slow for the miss; gzip -9 12,925 B in 0.5 ms. On the spur gear (8.6 KB JSON form,
 * 6.8 KB binary; 1 s of back-to-back runs each) q5 took 238 / 270 µs and q6 312 / 351 µs for the
 * same bytes within one (q4: 175 / 202 µs, 1 % more): q5, the quality of every other dynamic
 * answer (`compress`, lib/http/content_coding.ts). A prefix served twice is upgraded anyway.
 */
export const PREFIX_BROTLI_QUALITY = 5;
/**
 * brotli quality a cached prefix is upgraded to in the background once it is served a second time
 * (on the compression thread, never on a request's path): q10 took 6 % fewer bytes than q6 over the
 * examples' binary responses (26,413 against 28,063 B) for 2–70 ms of a pool thread; q11 saved
 * nothing more and took longer.
 */
export const UPGRADED_BROTLI_QUALITY = 10;
/** gzip level of a cached prefix. */
export const PREFIX_GZIP_LEVEL = 9;

/** The largest uncompressed meta-block or stored block this writes. */
const MAX_BLOCK = 0xffff;

/** brotli at `quality`, ended by a flush: byte-aligned and unfinished, ready for a tail. */
function brotliOptions(prefix: Uint8Array, quality: number): zlib.BrotliOptions {
  return {
    // The tail adds no distances, so the prefix alone sets the window (see brotliWindowBits).
    params: brotliParams(quality, prefix.byteLength),
    finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
  };
}

/** A character outside ASCII (more than one byte in UTF-8). */
const NON_ASCII = /[\u0080-\uffff]/;
const encoder = new TextEncoder();

const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * A prefix compressed in one coding, ready to be finished by any tail.
 *
 * @example
 * ```ts
 * const coded = CodedPrefix.compress(prefixBytes, "br");
 * const body = coded.finish(tailBytes); // brotli of prefix + tail (bytes or text)
 * ```
 */
export class CodedPrefix {
  /** The coding of the bytes. */
  readonly coding: ContentCoding;
  /** The compressed prefix, unfinished. */
  readonly #bytes: Uint8Array;
  /** CRC-32 of the uncompressed prefix (gzip). */
  readonly #crc: number;
  /** Length of the uncompressed prefix. */
  readonly #length: number;

  private constructor(coding: ContentCoding, bytes: Uint8Array, crc: number, length: number) {
    this.coding = coding;
    this.#bytes = bytes;
    this.#crc = crc;
    this.#length = length;
  }

  /** Compresses `prefix` in `coding` (on this thread: prefixes are tens of kilobytes). */
  static compress(prefix: Uint8Array, coding: ContentCoding): CodedPrefix {
    if (coding === "br") {
      const bytes = zlib.brotliCompressSync(prefix, brotliOptions(prefix, PREFIX_BROTLI_QUALITY));
      return new CodedPrefix(coding, bytes, 0, prefix.byteLength);
    }
    const deflated = zlib.deflateRawSync(prefix, {
      level: PREFIX_GZIP_LEVEL,
      finishFlush: zlib.constants.Z_SYNC_FLUSH,
    });
    const bytes = new Uint8Array(GZIP_HEADER.length + deflated.byteLength);
    bytes.set(GZIP_HEADER, 0);
    bytes.set(deflated, GZIP_HEADER.length);
    return new CodedPrefix(coding, bytes, zlib.crc32(prefix), prefix.byteLength);
  }

  /**
   * `prefix` in brotli at `UPGRADED_BROTLI_QUALITY`, compressed on the compression thread
   * (lib/http/compression_worker.ts; Deno's `node:zlib` callbacks would stall the event loop for
   * the 2–70 ms it takes): what a served prefix is replaced by once ready.
   */
  static async upgradeBrotli(prefix: Uint8Array): Promise<CodedPrefix> {
    const bytes = await compressOffThread(prefix, {
      coding: "br",
      quality: UPGRADED_BROTLI_QUALITY,
      flush: true,
    });
    return new CodedPrefix("br", bytes, 0, prefix.byteLength);
  }

  /** Bytes held (for cache bounds). */
  get size(): number {
    return this.#bytes.byteLength;
  }

  /**
   * The whole coded body: the prefix, then `tail` as it is (text as UTF-8). A short ASCII text (a
   * render response's per-request members) is written in place, with no encoder call and no
   * intermediate array: this runs on every cache hit.
   */
  finish(tail: Uint8Array | string): Uint8Array<ArrayBuffer> {
    const text = typeof tail === "string";
    if (text && (tail.length > MAX_BLOCK || NON_ASCII.test(tail))) {
      return this.finish(encoder.encode(tail));
    }
    // An ASCII string has a byte per character: `length` is the byte length either way.
    const length = tail.length;
    const blocks = Math.max(1, Math.ceil(length / MAX_BLOCK));
    const gzip = this.coding === "gzip";
    const out = new Uint8Array(
      this.#bytes.byteLength + length + blocks * (gzip ? 5 : 3) + (gzip ? 8 : 1),
    );
    out.set(this.#bytes, 0);
    let at = this.#bytes.byteLength;
    for (let b = 0; b < blocks; b++) {
      const start = b * MAX_BLOCK;
      const n = Math.min(length - start, MAX_BLOCK);
      if (gzip) {
        // BFINAL on the last block, BTYPE 00 (stored); then LEN and NLEN.
        out[at++] = b === blocks - 1 ? 1 : 0;
        out[at++] = n & 0xff;
        out[at++] = n >> 8;
        out[at++] = ~n & 0xff;
        out[at++] = (~n >> 8) & 0xff;
      } else if (n > 0) {
        // ISLAST 0, MNIBBLES 4 (code 0), MLEN − 1 in 16 bits, ISUNCOMPRESSED 1, pad to a byte.
        const bits = ((n - 1) << 3) | (1 << 19);
        out[at++] = bits & 0xff;
        out[at++] = (bits >> 8) & 0xff;
        out[at++] = (bits >> 16) & 0xff;
      }
      if (text) {
        // One block (checked above), so the text's bytes end up contiguous: the CRC reads them.
        for (let i = 0; i < n; i++) out[at + i] = tail.charCodeAt(i);
      } else {
        out.set(tail.subarray(start, start + n), at);
      }
      at += n;
    }
    if (gzip) {
      const bytes = text ? out.subarray(at - length, at) : tail;
      const view = new DataView(out.buffer);
      view.setUint32(at, zlib.crc32(bytes, this.#crc), true);
      view.setUint32(at + 4, (this.#length + length) >>> 0, true);
      at += 8;
    } else {
      out[at++] = 0x03; // ISLAST 1, ISLASTEMPTY 1
    }
    return out.subarray(0, at);
  }
}
