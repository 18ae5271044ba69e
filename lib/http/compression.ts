/**
 * Compression of per-request responses (RFC 9110 §8.4): once the app answered, its outermost
 * middleware (lib/web/app.ts) calls `compressResponse`, which sends JSON, JavaScript, CSS, HTML,
 * SVG and text bodies of at least `COMPRESSION_THRESHOLD` bytes in the coding the request's
 * `Accept-Encoding` prefers (brotli, then gzip; lib/http/content_coding.ts at the `dynamic`
 * effort), with `Vary: Accept-Encoding` and a coded ETag.
 *
 * It leaves alone what has decided its own coding: a response with `Content-Encoding` (render
 * responses, coded per cache entry) or one that already varies on `Accept-Encoding` (the coded
 * assets of lib/http/coded_asset.ts, precompressed once per process). It never codes a HEAD
 * answer (Vary only), bodiless statuses, ranges, `Cache-Control: no-transform`, or types that are
 * compressed already or streamed (images, fonts, wasm, zip, `text/event-stream`).
 *
 * Only bodies that reach the threshold vary by coding, so only they get `Vary` (identity and HEAD
 * answers too). Below it a response costs a few header reads and, when it declares no length, one
 * read of a clone of its in-memory body (the original is passed on untouched). Every body this
 * app answers with is in memory or declares its length; a compressible stream of unknown length
 * would be read whole.
 */
import type { Context } from "hono";
import { codedEtag, compress, compressSync, negotiateContentCoding } from "./content_coding.ts";
import { ifNoneMatchHits } from "./conditional.ts";
import { leanResponse } from "./lean_response.ts";

/** Bodies shorter than this are sent as they are: the coding's framing eats the gain. */
export const COMPRESSION_THRESHOLD = 1024;

/** Bodies up to this size are compressed on the calling thread (the compression thread's hand-off costs more). */
const SYNC_LIMIT = 8 * 1024;

/** JSON (and every `+json`), JavaScript, TypeScript, XML, CSS, HTML, SVG, markdown and text. */
const COMPRESSIBLE =
  /^\s*(?:text\/(?!event-stream\b)[\w.+-]+|application\/(?:json|javascript|ecmascript|x-javascript|typescript|xml|[\w.-]+\+(?:json|xml))|image\/svg\+xml)\s*(?:;|$)/i;

/** Statuses that carry no content, or a part of it. */
const NO_CODING = new Set([101, 103, 204, 205, 206, 304]);

/**
 * Whether a `Content-Type` names text that compresses well (JSON and `+json`, JavaScript, CSS,
 * HTML, SVG, markdown, plain text…); false for images, fonts, archives, wasm and event streams.
 *
 * @example
 * ```ts
 * isCompressibleType("application/problem+json"); // true
 * isCompressibleType("image/png"); // false
 * ```
 */
export function isCompressibleType(contentType: string | null | undefined): boolean {
  return contentType ? COMPRESSIBLE.test(contentType) : false;
}

/** Whether `headers`' `Vary` lists `field` (or `*`). */
export function varies(headers: Headers, field: string): boolean {
  const vary = headers.get("vary");
  if (!vary) return false;
  const want = field.toLowerCase();
  return vary.split(",").some((f) => {
    const name = f.trim().toLowerCase();
    return name === want || name === "*";
  });
}

/**
 * Adds `field` to `headers`' `Vary`, keeping the fields already there (`Origin` of CORS).
 *
 * @example
 * ```ts
 * const h = new Headers({ vary: "Origin" });
 * addVary(h, "Accept-Encoding"); // vary: Origin, Accept-Encoding
 * ```
 */
export function addVary(headers: Headers, field: string): void {
  if (varies(headers, field)) return;
  const vary = headers.get("vary");
  headers.set("vary", vary ? `${vary}, ${field}` : field);
}

/**
 * Compresses the response the rest of the app made when it qualifies (see the module comment).
 * A GET whose `If-None-Match` names the coded ETag of the body it would send answers 304 (the
 * route compared it with its identity ETag and could not know).
 *
 * @example
 * ```ts
 * app.use("*", async (c, next) => {
 *   await next();
 *   await compressResponse(c);
 * });
 * ```
 */
export async function compressResponse(c: Context): Promise<void> {
  const res = c.res;
  const h = res.headers;
  // A short body with a declared length (every JSON answer and problem) is left as it is: one
  // header read instead of five (each read checks its name and scans the list).
  const declared = h.get("content-length");
  if (declared !== null && Number(declared) < COMPRESSION_THRESHOLD) return;
  if (NO_CODING.has(res.status) || !isCompressibleType(h.get("content-type"))) return;
  if (h.has("content-encoding") || varies(h, "accept-encoding")) return;
  if (/\bno-transform\b/i.test(h.get("cache-control") ?? "")) return;
  // A clone leaves the original (an in-memory body, sent as it is when short) unread.
  let bytes = declared === null ? await res.clone().bytes() : undefined;
  if ((bytes?.byteLength ?? Number(declared)) < COMPRESSION_THRESHOLD) return;
  addVary(h, "Accept-Encoding");
  const method = c.req.method;
  if (method === "HEAD") return;
  const coding = negotiateContentCoding(c.req.header("accept-encoding"));
  if (coding === null) return;
  bytes ??= await res.bytes();
  const headers = new Headers(h);
  headers.delete("content-length");
  const etag = h.get("etag");
  if (etag) {
    headers.set("etag", codedEtag(etag, coding));
    if (
      res.status === 200 && method === "GET" &&
      ifNoneMatchHits(c.req.header("if-none-match"), headers.get("etag")!)
    ) {
      headers.delete("content-type");
      replace(c, null, { status: 304 }, headers);
      return;
    }
  }
  const body = bytes.byteLength <= SYNC_LIMIT
    ? compressSync(bytes, coding, "dynamic")
    : await compress(bytes, coding, "dynamic");
  headers.set("content-encoding", coding);
  headers.set("content-length", String(body.byteLength));
  replace(c, body, res, headers);
}

/** Swaps the context's response without Hono copying the old one's headers onto it. */
function replace(
  c: Context,
  body: Uint8Array<ArrayBuffer> | null,
  init: { status: number; statusText?: string },
  headers: Headers,
): void {
  c.res = undefined;
  c.res = leanResponse(body, { status: init.status, statusText: init.statusText, headers });
}
