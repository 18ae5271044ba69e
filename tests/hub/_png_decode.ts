/**
 * A PNG reader for tests (8-bit RGB or RGBA, not interlaced): checks the signature and every
 * chunk's CRC, inflates IDAT with the platform's zlib and undoes all five row filters.
 */
import assert from "node:assert/strict";
import { crc32 } from "@/lib/hub/png_encode.ts";

/** A decoded picture: 3 bytes per pixel, rows top to bottom. */
export interface DecodedPng {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** Decodes `png`, failing the test on anything malformed. */
export async function decodePng(png: Uint8Array): Promise<DecodedPng> {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8, width = 0, height = 0, channels = 0;
  const idat: Uint8Array[] = [];
  const types: string[] = [];
  while (at < png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const data = png.subarray(at + 8, at + 8 + length);
    assert.equal(view.getUint32(at + 8 + length), crc32(png.subarray(at + 4, at + 8 + length)));
    types.push(type);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      assert.equal(data[8], 8, "8 bits per sample");
      assert.ok(data[9] === 2 || data[9] === 6, "RGB or RGBA");
      assert.equal(data[12], 0, "not interlaced");
      channels = data[9] === 2 ? 3 : 4;
    }
    if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  assert.equal(types[0], "IHDR");
  assert.equal(types.at(-1), "IEND");
  const joined = new Uint8Array(idat.reduce((n, d) => n + d.length, 0));
  idat.reduce((o, d) => (joined.set(d, o), o + d.length), 0);
  const raw = new Uint8Array(
    await new Response(
      new Blob([joined]).stream().pipeThrough(new DecompressionStream("deflate")),
    ).arrayBuffer(),
  );
  const stride = width * channels;
  assert.equal(raw.length, (stride + 1) * height);
  const px = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= channels ? px[y * stride + x - channels] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
        ? a
        : Math.abs(p - b) <= Math.abs(p - c)
        ? b
        : c;
      const pred = [0, a, b, (a + b) >> 1, paeth][filter];
      assert.ok(pred !== undefined, `filter ${filter}`);
      px[y * stride + x] = (v + pred) & 0xff;
    }
  }
  if (channels === 3) return { width, height, rgb: px };
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb.set(px.subarray(4 * i, 4 * i + 3), 3 * i);
  return { width, height, rgb };
}
