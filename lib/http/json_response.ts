/**
 * JSON responses that declare their length. A body of unknown length costs the compression
 * middleware (lib/http/compression.ts) a clone and a read of the response to learn whether it
 * reaches the compression threshold; a declared `Content-Length` answers that from the headers.
 * They are lean (lib/http/lean_response.ts): middleware adds headers to every one of them.
 */
import { leanResponse } from "./lean_response.ts";

const encoder = new TextEncoder();

/**
 * `value` as a JSON response with `Content-Type` (default `application/json`) and
 * `Content-Length` set; `init.headers` are added.
 *
 * @example
 * ```ts
 * return jsonResponse({ token }, { headers: { "cache-control": "no-store" } });
 * ```
 */
export function jsonResponse(
  value: unknown,
  init: { status?: number; headers?: HeadersInit } = {},
  contentType = "application/json",
): Response {
  const body = encoder.encode(JSON.stringify(value));
  const res = leanResponse(body, { status: init.status, headers: init.headers ?? {} });
  const headers = res.headers;
  headers.set("content-type", contentType);
  headers.set("content-length", String(body.byteLength));
  return res;
}
