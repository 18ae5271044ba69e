/**
 * Raw HTTP requests for compression tests: `node:http` neither sends `Accept-Encoding` of its own
 * nor decodes the answer (Deno's fetch does both), so a test sees the bytes on the wire.
 */
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

/** One answer as it came over the wire. */
export interface RawResponse {
  status: number;
  headers: Headers;
  /** The body as sent (still coded). */
  body: Uint8Array;
}

/** Sends `method url` with exactly `headers`; resolves with the undecoded answer. */
export function rawRequest(
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (c: Uint8Array) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
        let at = 0;
        for (const c of chunks) {
          body.set(c, at);
          at += c.length;
        }
        resolve({ status: res.statusCode ?? 0, headers: out, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** The identity bytes of a raw answer, decoded by its `Content-Encoding`. */
export function decoded(res: RawResponse): Uint8Array {
  const coding = res.headers.get("content-encoding");
  if (coding === "br") return new Uint8Array(brotliDecompressSync(res.body));
  if (coding === "gzip") return new Uint8Array(gunzipSync(res.body));
  if (coding === null) return res.body;
  throw new Error(`unexpected content-encoding ${coding}`);
}
