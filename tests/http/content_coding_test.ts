import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { brotliStreamWindowBits } from "../_helpers/brotli_window.ts";
import {
  acceptedCodings,
  brotliWindowBits,
  codedEtag,
  compress,
  compressSync,
  negotiateContentCoding,
} from "@/lib/http/content_coding.ts";

Deno.test("http - content coding: the client's highest weight wins, ties go to brotli", () => {
  const cases: [string | null, "br" | "gzip" | null][] = [
    [null, null],
    ["", null],
    ["identity", null],
    ["gzip", "gzip"],
    ["x-gzip", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["gzip, deflate", "gzip"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0, gzip;q=0", null],
    ["*", "br"],
    ["*;q=0", null],
    ["br;q=0, *", "gzip"],
    ["GZIP;Q=0.8", "gzip"],
    ["gzip;q=nonsense, br;q=2", null],
    ["deflate", null],
  ];
  for (const [header, expected] of cases) {
    assert.equal(negotiateContentCoding(header), expected, header ?? "null");
  }
  assert.equal(negotiateContentCoding("gzip, br", ["gzip"]), "gzip");
});

Deno.test("http - content coding: every accepted coding, best first, in one parse", () => {
  assert.deepEqual(acceptedCodings(null), []);
  assert.deepEqual(acceptedCodings("identity"), []);
  assert.deepEqual(acceptedCodings("gzip, deflate, br, zstd"), ["br", "gzip"]);
  assert.deepEqual(acceptedCodings("gzip, br;q=0.8"), ["gzip", "br"]);
  assert.deepEqual(acceptedCodings("br, gzip;q=0"), ["br"]);
  assert.deepEqual(acceptedCodings("*;q=0.5, gzip"), ["gzip", "br"]);
});

Deno.test("http - content coding: both codings and both efforts round-trip", async () => {
  const text = new TextEncoder().encode('{"a":"import { x } from \'./y.js\';"}\n'.repeat(400));
  for (const effort of ["static", "dynamic"] as const) {
    const br = compressSync(text, "br", effort);
    assert.deepEqual(new Uint8Array(brotliDecompressSync(br)), text);
    assert.ok(br.byteLength < text.byteLength / 10);
    const gz = await compress(text, "gzip", effort);
    assert.deepEqual(new Uint8Array(gunzipSync(gz)), text);
    const brAsync = await compress(text, "br", effort);
    assert.deepEqual(new Uint8Array(brotliDecompressSync(brAsync)), text);
  }
});

Deno.test("http - content coding: brotli declares the smallest window of 17 bits or more that holds the body", async () => {
  // 2^bits − 16 bytes of window (RFC 7932 §9.1), from 17 bits (below, brotli's encoder switches
  // to hashers that cost milliseconds to set up) to 24.
  assert.equal(brotliWindowBits(0), 17);
  assert.equal(brotliWindowBits(5000), 17);
  assert.equal(brotliWindowBits(131_056), 17);
  assert.equal(brotliWindowBits(131_057), 18);
  assert.equal(brotliWindowBits(1_000_000), 20);
  assert.equal(brotliWindowBits(1 << 30), 24);
  for (const size of [10, 5000, 200_000, 600_000]) {
    const text = new Uint8Array(size).map((_, i) => 97 + ((i * 7) % 26));
    for (const effort of ["static", "dynamic"] as const) {
      for (const br of [compressSync(text, "br", effort), await compress(text, "br", effort)]) {
        assert.equal(brotliStreamWindowBits(br), brotliWindowBits(size), `${size} ${effort}`);
        assert.deepEqual(new Uint8Array(brotliDecompressSync(br)), text);
      }
    }
  }
});

Deno.test("http - content coding: a coded ETag differs per coding and keeps W/", () => {
  assert.equal(codedEtag('"abc"', "br"), '"abc-br"');
  assert.equal(codedEtag('"abc"', "gzip"), '"abc-gz"');
  assert.equal(codedEtag('W/"abc"', "gzip"), 'W/"abc-gz"');
  assert.equal(codedEtag('"abc"', null), '"abc"');
});

Deno.test("http - content coding: compress leaves the event loop free while it works", async () => {
  // Random bytes at brotli quality 11: long work. Deno's node:zlib callbacks would do it before
  // the call returns; the compression thread does it while this thread runs the timer below.
  const bytes = new Uint8Array(65536 * 8);
  for (let at = 0; at < bytes.length; at += 65536) {
    crypto.getRandomValues(bytes.subarray(at, at + 65536));
  }
  const order: string[] = [];
  const packed = compress(bytes, "br", "static").then((out) => {
    order.push("compressed");
    return out;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  order.push("timer");
  assert.deepEqual(new Uint8Array(brotliDecompressSync(await packed)), bytes);
  assert.deepEqual(order, ["timer", "compressed"]);
});
