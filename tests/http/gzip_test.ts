import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { acceptsGzip, gzipBytes } from "@/lib/http/gzip.ts";

Deno.test("http - Accept-Encoding: gzip is accepted only with a non-zero weight", () => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    ["identity", false],
    ["br", false],
    ["gzip", true],
    ["GZIP", true],
    ["x-gzip", true],
    ["gzip, deflate, br, zstd", true],
    ["br;q=1.0, gzip;q=0.8, *;q=0.1", true],
    ["gzip;q=0", false],
    ["gzip; q=0.000", false],
    ["*", true],
    ["*;q=0", false],
    ["gzip;q=0, *", false],
    ["br, *;q=0.5", true],
    ["gzip;q=nonsense", false],
  ];
  for (const [header, expected] of cases) {
    assert.equal(acceptsGzip(header), expected, header ?? "null");
  }
});

Deno.test("http - gzipBytes round-trips and shrinks repetitive bytes", async () => {
  const text = new TextEncoder().encode("import { x } from './y.js';\n".repeat(500));
  const packed = await gzipBytes(text);
  assert.ok(packed.length < text.length / 10, `${packed.length} of ${text.length}`);
  assert.deepEqual(new Uint8Array(gunzipSync(packed)), text);
  assert.deepEqual(new Uint8Array(gunzipSync(await gzipBytes(new Uint8Array()))), new Uint8Array());
});
