/**
 * Serves `static/` at the site root (Fresh's convention) for GET and HEAD as coded assets
 * (lib/http/coded_asset.ts): a content type, a strong ETag per coding, `304 Not Modified`, and
 * brotli or gzip for text the client accepts, each compressed once per process. The
 * content-hashed build output under `/build/` (islands, SDK bundles, shared chunks) is immutable
 * and readable cross-origin; other files revalidate. Paths that try to leave the folder are not
 * served.
 */
import type { MiddlewareHandler } from "hono";
import { extname, join, normalize } from "node:path";
import { assetRequest, assetResponse, cachedAsset, CodedAsset } from "../http/coded_asset.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".wasm": "application/wasm",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".woff2": "font/woff2",
};

/** Middleware serving files below `root`; falls through to `next` when nothing matches. */
export function staticFiles(root: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return await next();
    let rel: string;
    try {
      rel = normalize(decodeURIComponent(new URL(c.req.url).pathname));
    } catch {
      return await next();
    }
    if (rel.includes("\0") || rel.split("/").includes("..") || rel.endsWith("/")) {
      return await next();
    }
    const path = join(root, rel);
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch {
      return await next();
    }
    if (!info.isFile) return await next();
    const build = rel.startsWith("/build/");
    const type = TYPES[extname(path)] ?? "application/octet-stream";
    let asset: CodedAsset;
    try {
      asset = await cachedAsset(
        `static:${path}`,
        `${info.size}-${info.mtime?.getTime() ?? 0}`,
        async () => CodedAsset.of(await Deno.readFile(path), type),
      );
    } catch {
      return await next();
    }
    return await assetResponse(asset, assetRequest(c.req.raw), {
      // Content-hashed build output never changes; everything else revalidates.
      cacheControl: build
        ? "public, max-age=31536000, immutable"
        : "public, max-age=0, must-revalidate",
      // Bundles are public scripts that partner pages load cross-origin as modules (the SDK).
      headers: build ? BUILD_CORS : undefined,
    });
  };
}

const BUILD_CORS = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
};
