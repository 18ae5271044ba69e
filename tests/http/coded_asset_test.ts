/**
 * Coded assets: a strong ETag of the bytes and one per coding, gzip while brotli is being made,
 * 304 and HEAD, and the per-process cache keyed by version.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  assetRequest,
  assetResponse,
  cachedAsset,
  CodedAsset,
  type CodedAsset as Asset,
} from "@/lib/http/coded_asset.ts";

const JS = "text/javascript; charset=utf-8";
const SOURCE = new TextEncoder().encode(
  Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i * 7};\n`).join(""),
);

async function sha256Prefix(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("coded asset - a strong ETag of the bytes; text of 1 KiB or more is coded", async () => {
  const asset = await CodedAsset.of(SOURCE, JS);
  assert.equal(asset.etag, `"${await sha256Prefix(SOURCE)}"`);
  assert.ok(asset.compressible);
  const small = await CodedAsset.of(new TextEncoder().encode("export {};"), JS);
  assert.ok(!small.compressible, "a short file goes as it is");
  assert.ok(!(await CodedAsset.of(SOURCE, "image/png")).compressible);
  assert.ok((await CodedAsset.of(SOURCE, "application/wasm", { compressible: true })).compressible);
  assert.ok(!(await CodedAsset.of(SOURCE, JS, { compressible: false })).compressible);
});

Deno.test("coded asset - gzip while brotli is made, brotli after, identity when refused", async () => {
  const asset = await CodedAsset.of(SOURCE, JS);
  // Each call decides before it awaits anything, and a compression finishes in a later task.
  const brOnly = await asset.representation("br");
  assert.equal(brOnly.coding, null, "a brotli-only client does not wait for it");
  assert.equal(brOnly.body, SOURCE);
  const first = await asset.representation("gzip, deflate, br");
  assert.equal(first.coding, "gzip", "brotli (quality 11) is not awaited");
  assert.deepEqual(new Uint8Array(gunzipSync(first.body)), SOURCE);
  const br = await asset.coded("br");
  const later = await asset.representation("gzip, deflate, br");
  assert.equal(later.coding, "br");
  assert.equal(later.body, br, "made once");
  assert.deepEqual(new Uint8Array(brotliDecompressSync(later.body)), SOURCE);
  assert.equal((await asset.representation("identity")).coding, null);
  assert.equal((await asset.representation(null)).body, SOURCE);
  assert.ok(asset.heldBytes > SOURCE.length);
});

Deno.test("coded asset - the response: headers, 304 on the coded ETag, HEAD", async () => {
  const asset = await CodedAsset.of(SOURCE, JS);
  await asset.coded("br");
  const serving = {
    cacheControl: "public, max-age=31536000, immutable",
    headers: { "access-control-allow-origin": "*" },
  };
  const request = (headers: Record<string, string>, method = "GET") =>
    assetRequest(new Request("http://x/a.js", { method, headers }));
  const res = await assetResponse(asset, request({ "accept-encoding": "br" }), serving);
  const body = new Uint8Array(await res.arrayBuffer());
  assert.equal(res.headers.get("content-encoding"), "br");
  assert.equal(res.headers.get("etag"), asset.etag.replace(/"$/, '-br"'));
  assert.equal(res.headers.get("vary"), "Accept-Encoding");
  assert.equal(res.headers.get("cache-control"), serving.cacheControl);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(Number(res.headers.get("content-length")), body.length);
  const etag = res.headers.get("etag")!;
  const again = await assetResponse(
    asset,
    request({ "accept-encoding": "br", "if-none-match": `"other", ${etag}` }),
    serving,
  );
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
  const identity = await assetResponse(asset, request({ "if-none-match": etag }), serving);
  assert.equal(identity.status, 200, "the brotli ETag does not name the identity bytes");
  assert.equal(identity.headers.get("etag"), asset.etag);
  assert.deepEqual(new Uint8Array(await identity.arrayBuffer()), SOURCE);
  const head = await assetResponse(asset, request({ "accept-encoding": "br" }, "HEAD"), serving);
  assert.equal(head.body, null);
  assert.equal(Number(head.headers.get("content-length")), body.length);
  const icon = await CodedAsset.of(SOURCE, "image/x-icon");
  const plain = await assetResponse(icon, request({ "accept-encoding": "br" }), serving);
  assert.equal(plain.headers.get("vary"), null, "what is never coded does not vary");
  assert.equal(plain.headers.get("content-encoding"), null);
  await plain.body?.cancel();
});

Deno.test("coded asset - a copy in another accepted coding it holds revalidates: a 304, not the preferred coding again", async () => {
  const asset = await CodedAsset.of(SOURCE, JS);
  const serving = { cacheControl: "public, max-age=60" };
  const request = (headers: Record<string, string>) =>
    assetRequest(new Request("http://x/a.js", { headers }));
  const chromium = "gzip, deflate, br, zstd";
  const first = await assetResponse(asset, request({ "accept-encoding": chromium }), serving);
  assert.equal(first.headers.get("content-encoding"), "gzip", "brotli is still being made");
  await first.body?.cancel();
  const gzipTag = first.headers.get("etag")!;
  await asset.coded("br");
  const again = await assetResponse(
    asset,
    request({ "accept-encoding": chromium, "if-none-match": gzipTag }),
    serving,
  );
  assert.equal(again.status, 304, "the gzip copy the client holds is still good");
  assert.equal(again.headers.get("etag"), gzipTag);
  const fresh = await assetResponse(asset, request({ "accept-encoding": chromium }), serving);
  assert.equal(fresh.headers.get("content-encoding"), "br", "without a copy: the preferred coding");
  await fresh.body?.cancel();
  const brOnly = await assetResponse(
    asset,
    request({ "accept-encoding": "br", "if-none-match": gzipTag }),
    serving,
  );
  assert.equal(brOnly.status, 200, "a client that no longer takes gzip gets its coding");
  assert.equal(brOnly.headers.get("content-encoding"), "br");
  await brOnly.body?.cancel();
  const unknown = await assetResponse(
    asset,
    request({ "accept-encoding": chromium, "if-none-match": '"not-this-one-gz"' }),
    serving,
  );
  assert.equal(unknown.status, 200);
  assert.equal(unknown.headers.get("content-encoding"), "br");
  await unknown.body?.cancel();
});

Deno.test("coded asset - the cache loads once per version and forgets a failed load", async () => {
  const key = `test:${crypto.randomUUID()}`;
  let loads = 0;
  const load = () => {
    loads++;
    return CodedAsset.of(SOURCE, JS);
  };
  const a: Asset = await cachedAsset(key, "v1", load);
  assert.equal(await cachedAsset(key, "v1", load), a);
  assert.equal(loads, 1);
  const b = await cachedAsset(key, "v2", load);
  assert.notEqual(b, a);
  assert.equal(loads, 2);
  const failing = `test:${crypto.randomUUID()}`;
  await assert.rejects(cachedAsset(failing, "v1", () => Promise.reject(new Error("gone"))));
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(await cachedAsset(failing, "v1", load), "tried again after the failure");
  assert.equal(loads, 3);
});
