/**
 * Serves `static/` at the site root (Fresh's convention) for GET and HEAD, with a content type,
 * a validator (`ETag` from size and mtime) and `304 Not Modified`. Paths that try to leave the
 * folder are not served.
 */
import type { MiddlewareHandler } from "hono";
import { extname, join, normalize } from "node:path";

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
    const etag = `W/"${info.size.toString(36)}-${(info.mtime?.getTime() ?? 0).toString(36)}"`;
    const headers = new Headers({
      "content-type": TYPES[extname(path)] ?? "application/octet-stream",
      etag,
      // Content-hashed build output never changes; everything else revalidates.
      "cache-control": rel.startsWith("/build/")
        ? "public, max-age=31536000, immutable"
        : "public, max-age=0, must-revalidate",
    });
    // Bundles are public scripts that partner pages load cross-origin as modules (the SDK).
    if (rel.startsWith("/build/")) {
      headers.set("access-control-allow-origin", "*");
      headers.set("cross-origin-resource-policy", "cross-origin");
    }
    if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
    headers.set("content-length", String(info.size));
    if (c.req.method === "HEAD") return new Response(null, { headers });
    const file = await Deno.open(path);
    return new Response(file.readable, { headers });
  };
}
