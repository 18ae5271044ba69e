/**
 * Compression (`compressResponse`, as the app's outermost middleware runs it) on a small Hono app: what it codes, what it leaves alone, and how it
 * merges `Vary` and codes ETags. The app's real answers are covered by
 * compressed_responses_test.ts.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { Hono } from "hono";
import {
  addVary,
  COMPRESSION_THRESHOLD,
  compressResponse,
  isCompressibleType,
} from "@/lib/http/compression.ts";
import { ifNoneMatchHits } from "@/lib/http/conditional.ts";

const BIG = JSON.stringify({
  items: Array.from({ length: 200 }, (_, i) => ({ i, name: `n${i}` })),
});
const SMALL = JSON.stringify({ ok: true });

function testApp(): Hono {
  const app = new Hono();
  app.use("*", async (c, next) => {
    await next();
    await compressResponse(c);
  });
  const json = (body: string, headers: Record<string, string> = {}, status = 200) =>
    new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
  app.get("/big", () => json(BIG, { etag: '"v1"', vary: "Origin" }));
  app.post("/big", () => json(BIG));
  app.get("/small", () => json(SMALL));
  app.get(
    "/problem",
    () =>
      new Response(BIG, { status: 422, headers: { "content-type": "application/problem+json" } }),
  );
  app.get("/sized", () => json(BIG, { "content-length": String(BIG.length) }));
  app.get("/no-transform", () => json(BIG, { "cache-control": "public, no-transform" }));
  app.get("/coded", () => json(BIG, { "content-encoding": "identity-ish" }));
  app.get("/varies", () => json(BIG, { vary: "Accept-Encoding" }));
  app.get("/png", () => new Response(BIG, { headers: { "content-type": "image/png" } }));
  app.get("/events", () => new Response(BIG, { headers: { "content-type": "text/event-stream" } }));
  app.get("/empty", () => new Response(null, { status: 204 }));
  return app;
}

async function get(app: Hono, path: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await app.request(path, { method, headers });
  return { res, body: new Uint8Array(await res.arrayBuffer()) };
}

Deno.test("http - compression: types that are text compress, others do not", () => {
  for (
    const type of [
      "application/json",
      "application/problem+json",
      "application/schema+json; charset=utf-8",
      "text/html; charset=utf-8",
      "text/javascript; charset=utf-8",
      "text/css",
      "text/markdown",
      "text/plain",
      "image/svg+xml",
      "application/typescript",
    ]
  ) assert.ok(isCompressibleType(type), type);
  for (
    const type of [
      null,
      "",
      "image/png",
      "font/woff2",
      "application/wasm",
      "application/zip",
      "application/octet-stream",
      "text/event-stream",
      "application/jsonx",
    ]
  ) assert.ok(!isCompressibleType(type), String(type));
});

Deno.test("http - compression: Vary merges, If-None-Match compares weakly", () => {
  const h = new Headers({ vary: "Origin" });
  addVary(h, "Accept-Encoding");
  addVary(h, "accept-encoding");
  assert.equal(h.get("vary"), "Origin, Accept-Encoding");
  const empty = new Headers();
  addVary(empty, "Accept-Encoding");
  assert.equal(empty.get("vary"), "Accept-Encoding");
  assert.ok(ifNoneMatchHits('"a", W/"b-br"', '"b-br"'));
  assert.ok(ifNoneMatchHits("*", '"x"'));
  assert.ok(!ifNoneMatchHits('"b"', '"b-br"'));
  assert.ok(!ifNoneMatchHits(null, '"b"'));
});

Deno.test("http - compression: a large JSON answer goes in the coding the client prefers", async (t) => {
  const app = testApp();
  const plain = new TextEncoder().encode(BIG);
  assert.ok(plain.length > COMPRESSION_THRESHOLD * 2);
  await t.step("brotli, with Vary merged and the ETag coded", async () => {
    const { res, body } = await get(app, "/big", { "accept-encoding": "gzip, br" });
    assert.equal(res.headers.get("content-encoding"), "br");
    assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding");
    assert.equal(res.headers.get("etag"), '"v1-br"');
    assert.equal(Number(res.headers.get("content-length")), body.length);
    assert.ok(body.length < plain.length / 3, `${body.length} of ${plain.length}`);
    assert.deepEqual(new Uint8Array(brotliDecompressSync(body)), plain);
  });
  await t.step("gzip when brotli is refused or weighed lower", async () => {
    for (const ae of ["gzip", "br;q=0.5, gzip", "br;q=0, *"]) {
      const { res, body } = await get(app, "/big", { "accept-encoding": ae });
      assert.equal(res.headers.get("content-encoding"), "gzip", ae);
      assert.equal(res.headers.get("etag"), '"v1-gz"');
      assert.deepEqual(new Uint8Array(gunzipSync(body)), plain);
    }
  });
  await t.step("identity without Accept-Encoding, still with Vary", async () => {
    const variants: Record<string, string>[] = [
      {},
      { "accept-encoding": "identity" },
      { "accept-encoding": "zstd" },
    ];
    for (const headers of variants) {
      const { res, body } = await get(app, "/big", headers);
      assert.equal(res.headers.get("content-encoding"), null);
      assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding");
      assert.equal(res.headers.get("etag"), '"v1"');
      assert.deepEqual(body, plain);
    }
  });
  await t.step("If-None-Match with the coded ETag is a 304 with that ETag", async () => {
    const { res, body } = await get(app, "/big", {
      "accept-encoding": "br",
      "if-none-match": '"v1-br"',
    });
    assert.equal(res.status, 304);
    assert.equal(body.length, 0);
    assert.equal(res.headers.get("etag"), '"v1-br"');
    assert.match(res.headers.get("vary")!, /Accept-Encoding/);
    const other = await get(app, "/big", { "accept-encoding": "gzip", "if-none-match": '"v1-br"' });
    assert.equal(other.res.status, 200, "the brotli validator does not name the gzip bytes");
  });
  await t.step("POST answers, problems and declared lengths too", async () => {
    const post = await get(app, "/big", { "accept-encoding": "br" }, "POST");
    assert.equal(post.res.headers.get("content-encoding"), "br");
    const problem = await get(app, "/problem", { "accept-encoding": "gzip" });
    assert.equal(problem.res.status, 422);
    assert.equal(problem.res.headers.get("content-encoding"), "gzip");
    assert.deepEqual(new Uint8Array(gunzipSync(problem.body)), plain);
    const sized = await get(app, "/sized", { "accept-encoding": "br" });
    assert.equal(sized.res.headers.get("content-encoding"), "br");
    assert.equal(Number(sized.res.headers.get("content-length")), sized.body.length);
  });
});

Deno.test("http - compression: what the middleware leaves as it is", async () => {
  const app = testApp();
  const br = { "accept-encoding": "br, gzip" };
  const cases: Array<[string, string, string | null]> = [
    ["/small", "below the threshold", null],
    ["/no-transform", "Cache-Control: no-transform", null],
    ["/coded", "Content-Encoding already set", "identity-ish"],
    ["/varies", "Vary: Accept-Encoding already set (a coded asset)", null],
    ["/png", "an image", null],
    ["/events", "an event stream", null],
    ["/empty", "204", null],
  ];
  for (const [path, why, encoding] of cases) {
    const { res } = await get(app, path, br);
    assert.equal(res.headers.get("content-encoding"), encoding, why);
  }
  const small = await get(app, "/small", br);
  assert.equal(new TextDecoder().decode(small.body), SMALL);
  assert.equal(small.res.headers.get("vary"), null, "a short body never varies by coding");
  const head = await get(app, "/big", br, "HEAD");
  assert.equal(head.res.headers.get("content-encoding"), null, "HEAD is not coded");
  assert.match(head.res.headers.get("vary")!, /Accept-Encoding/);
});
