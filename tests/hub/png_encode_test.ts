import assert from "node:assert/strict";
import { crc32, encodePng } from "@/lib/hub/png_encode.ts";
import { decodePng } from "./_png_decode.ts";

Deno.test("png - CRC-32 gives the standard check values", () => {
  const text = (s: string) => new TextEncoder().encode(s);
  assert.equal(crc32(text("123456789")), 0xcbf43926);
  assert.equal(crc32(text("IEND")), 0xae426082);
  assert.equal(crc32(new Uint8Array()), 0);
});

Deno.test("png - pixels come back as they went in", async () => {
  const width = 37, height = 23;
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 131 + (i >> 5) * 7) & 0xff;
  const png = await encodePng(width, height, rgb);
  const decoded = await decodePng(png);
  assert.equal(decoded.width, width);
  assert.equal(decoded.height, height);
  assert.deepEqual(decoded.rgb, rgb);
});

Deno.test("png - a wrong size or byte count is a TypeError", async () => {
  await assert.rejects(() => encodePng(0, 1, new Uint8Array()), TypeError);
  await assert.rejects(() => encodePng(1.5, 1, new Uint8Array(3)), TypeError);
  await assert.rejects(() => encodePng(2, 2, new Uint8Array(11)), TypeError);
});
