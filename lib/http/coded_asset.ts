/**
 * Bytes served many times that change only with a deploy (island and SDK bundles, the files of
 * `static/`, the Python fallback's runtime, the SDK's declarations), and the one way to serve
 * them: a strong ETag from their SHA-256 (each coding its own, lib/http/content_coding.ts
 * `codedEtag`), `If-None-Match` → 304, `Vary: Accept-Encoding`, `Content-Length`, and each coding
 * compressed once per process at the `static` effort, off the event loop.
 *
 * Brotli at quality 11 is slow (about 1.5 s for the 570 KB three.js chunk), so a response never
 * waits for it: until it is ready, a client that accepts gzip gets gzip (level 9: tens of ms),
 * any other gets identity. Brotli of files over `HUGE_ASSET` (Pyodide's 9.6 MB wasm: 40 s at
 * quality 11, under 1 s at 5) is made at the `dynamic` effort instead.
 *
 * Assets live in one bounded per-process cache (`cachedAsset`), keyed by the caller's name and
 * version (a content hash, a release, a file's size and mtime).
 */
import {
  codedEtag,
  compress,
  type CompressionEffort,
  type ContentCoding,
  negotiateContentCoding,
} from "./content_coding.ts";
import { addVary, COMPRESSION_THRESHOLD, isCompressibleType } from "./compression.ts";
import { ifNoneMatchHits } from "./conditional.ts";
import { leanResponse } from "./lean_response.ts";

/** Above this size an asset's brotli is made at the `dynamic` effort. */
export const HUGE_ASSET = 4 * 1024 * 1024;

/** What a request for an asset says about caching and codings. */
export interface AssetRequest {
  /** `If-None-Match`, or null. */
  ifNoneMatch: string | null;
  /** `Accept-Encoding`, or null (identity then). */
  acceptEncoding: string | null;
  /** `GET` (default) or `HEAD`. */
  method?: string;
}

/** How an asset is served: its cache lifetime and extra headers (CORS). */
export interface AssetServing {
  /** The `Cache-Control` value. */
  cacheControl: string;
  /** More headers (`Access-Control-Allow-Origin`…); the asset's own win. */
  headers?: Record<string, string>;
}

/** One coded representation: its coding (null for identity) and bytes. */
interface Representation {
  coding: ContentCoding | null;
  body: Uint8Array<ArrayBuffer>;
}

/** An asset's bytes, type and strong ETag, with each coding made on first use. */
export class CodedAsset {
  /** The identity bytes. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** The `Content-Type`. */
  readonly type: string;
  /** Strong ETag of the identity bytes. */
  readonly etag: string;
  /** Whether the asset is sent coded to clients that accept it. */
  readonly compressible: boolean;
  readonly #pending = new Map<ContentCoding, Promise<Uint8Array<ArrayBuffer>>>();
  readonly #ready = new Map<ContentCoding, Uint8Array<ArrayBuffer>>();

  private constructor(
    bytes: Uint8Array<ArrayBuffer>,
    type: string,
    etag: string,
    compressible: boolean,
  ) {
    this.bytes = bytes;
    this.type = type;
    this.etag = etag;
    this.compressible = compressible;
  }

  /**
   * The asset of `bytes` served as `type`. `compressible` defaults to whether the type is text
   * (lib/http/compression.ts) and the bytes reach the compression threshold; pass it to code
   * other types (wasm compresses well) or to keep one as it is.
   *
   * @example
   * ```ts
   * const asset = await CodedAsset.of(await Deno.readFile(path), "text/javascript; charset=utf-8");
   * ```
   */
  static async of(
    bytes: Uint8Array<ArrayBuffer>,
    type: string,
    options: { compressible?: boolean } = {},
  ): Promise<CodedAsset> {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
    const compressible = (options.compressible ?? isCompressibleType(type)) &&
      bytes.byteLength >= COMPRESSION_THRESHOLD;
    return new CodedAsset(bytes, type, `"${hex}"`, compressible);
  }

  /** Bytes held: identity plus the codings made so far (the cache's budget counts these). */
  get heldBytes(): number {
    let n = this.bytes.byteLength;
    for (const body of this.#ready.values()) n += body.byteLength;
    return n;
  }

  /**
   * The bytes in `coding`, compressed on the first call (the same promise after), off the event
   * loop. A coding that does not shrink the asset yields the identity bytes.
   */
  coded(coding: ContentCoding): Promise<Uint8Array<ArrayBuffer>> {
    let pending = this.#pending.get(coding);
    if (!pending) {
      const effort: CompressionEffort = coding === "br" && this.bytes.byteLength > HUGE_ASSET
        ? "dynamic"
        : "static";
      pending = compress(this.bytes, coding, effort).then((out) => {
        const body = out.byteLength < this.bytes.byteLength ? out : this.bytes;
        this.#ready.set(coding, body);
        return body;
      });
      this.#pending.set(coding, pending);
      pending.catch(() => this.#pending.delete(coding));
    }
    return pending;
  }

  /**
   * The representation to send for `acceptEncoding`: the preferred coding when it is ready (or
   * gzip, which is awaited), gzip while brotli is still being made, else identity. When
   * `ifNoneMatch` names the validator of a coding the client accepts and this asset holds (the
   * gzip it got while brotli was being made), that one is selected, so its copy revalidates
   * (a 304) instead of being sent again in the coding it prefers.
   */
  async representation(
    acceptEncoding: string | null,
    ifNoneMatch: string | null = null,
  ): Promise<Representation> {
    if (!this.compressible) return { coding: null, body: this.bytes };
    if (ifNoneMatch && ifNoneMatch.trim() !== "*") {
      for (const [coding, body] of this.#ready) {
        if (
          negotiateContentCoding(acceptEncoding, [coding]) !== null &&
          ifNoneMatchHits(ifNoneMatch, codedEtag(this.etag, coding))
        ) {
          return this.#of(coding, body);
        }
      }
    }
    const best = negotiateContentCoding(acceptEncoding);
    if (best === null) return { coding: null, body: this.bytes };
    const ready = this.#ready.get(best);
    if (ready) return this.#of(best, ready);
    const making = this.coded(best);
    if (best === "gzip") return this.#of(best, await making);
    making.catch(() => {}); // a failed brotli is retried on a later request
    if (negotiateContentCoding(acceptEncoding, ["gzip"]) === null) {
      return { coding: null, body: this.bytes };
    }
    return this.#of("gzip", await this.coded("gzip"));
  }

  #of(coding: ContentCoding, body: Uint8Array<ArrayBuffer>): Representation {
    return body === this.bytes ? { coding: null, body } : { coding, body };
  }
}

/**
 * The response for `asset`: 200 with the representation `request` accepts, or 304 when
 * `If-None-Match` names its ETag; no body for HEAD.
 *
 * @example
 * ```ts
 * return await assetResponse(asset, assetRequest(ctx.req.raw), {
 *   cacheControl: "public, max-age=31536000, immutable",
 * });
 * ```
 */
export async function assetResponse(
  asset: CodedAsset,
  request: AssetRequest,
  serving: AssetServing,
): Promise<Response> {
  const { coding, body } = await asset.representation(request.acceptEncoding, request.ifNoneMatch);
  const etag = codedEtag(asset.etag, coding);
  const headers = new Headers(serving.headers);
  headers.set("content-type", asset.type);
  headers.set("etag", etag);
  headers.set("cache-control", serving.cacheControl);
  if (asset.compressible) addVary(headers, "Accept-Encoding");
  if (ifNoneMatchHits(request.ifNoneMatch, etag)) {
    return new Response(null, { status: 304, headers });
  }
  if (coding) headers.set("content-encoding", coding);
  headers.set("content-length", String(body.byteLength));
  return leanResponse(request.method === "HEAD" ? null : body, { headers });
}

/**
 * The `AssetRequest` of a `Request`.
 *
 * @example
 * ```ts
 * assetRequest(ctx.req.raw); // { ifNoneMatch: null, acceptEncoding: "gzip, br", method: "GET" }
 * ```
 */
export function assetRequest(request: Request): AssetRequest {
  return {
    ifNoneMatch: request.headers.get("if-none-match"),
    acceptEncoding: request.headers.get("accept-encoding"),
    method: request.method,
  };
}

/** Bytes the asset cache may hold (identity and coded) before it drops the least recently used. */
const CACHE_BUDGET = 96 * 1024 * 1024;

interface Shelved {
  version: string;
  asset: Promise<CodedAsset>;
  /** The asset once loaded. */
  loaded?: CodedAsset;
}

// Explicit cache, bounded by CACHE_BUDGET: assets of this process, least recently used first.
const shelf = new Map<string, Shelved>();

/**
 * The asset named `key` at `version`, loaded by `load` on a miss (or when the version moved) and
 * kept in the process's bounded cache; a failed load is not kept.
 *
 * @example
 * ```ts
 * const asset = await cachedAsset(`static:${path}`, `${size}-${mtime}`, async () =>
 *   CodedAsset.of(await Deno.readFile(path), "text/css; charset=utf-8"));
 * ```
 */
export function cachedAsset(
  key: string,
  version: string,
  load: () => Promise<CodedAsset>,
): Promise<CodedAsset> {
  const hit = shelf.get(key);
  shelf.delete(key);
  if (hit && hit.version === version) {
    shelf.set(key, hit);
    return hit.asset;
  }
  const entry: Shelved = { version, asset: load() };
  shelf.set(key, entry);
  entry.asset.then((asset) => {
    entry.loaded = asset;
    trim(key);
  }, () => {
    if (shelf.get(key) === entry) shelf.delete(key);
  });
  return entry.asset;
}

/** Drops the least recently used assets until the held bytes fit the budget (`keep` stays). */
function trim(keep: string): void {
  let total = 0;
  for (const entry of shelf.values()) total += entry.loaded?.heldBytes ?? 0;
  for (const [key, entry] of shelf) {
    if (total <= CACHE_BUDGET) break;
    if (key === keep) continue;
    shelf.delete(key);
    total -= entry.loaded?.heldBytes ?? 0;
  }
}
