/**
 * A minimal PNG encoder for pictures the hub draws itself (the settings' preview picture): 8-bit
 * RGB, no interlace, every row filtered with `Up` (1), IDAT compressed with the platform's zlib
 * (`CompressionStream("deflate")` writes the zlib format PNG requires). Chunk CRCs are CRC-32
 * (ISO 3309), as the PNG specification defines them.
 */

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/**
 * CRC-32 of `bytes` (the polynomial of PNG, gzip and zip).
 *
 * @example
 * ```ts
 * crc32(new TextEncoder().encode("IEND")); // 0xae426082
 * ```
 */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Encodes `rgb` (3 bytes per pixel, rows top to bottom) as a PNG file.
 *
 * @example
 * ```ts
 * const png = await encodePng(2, 1, new Uint8Array([255, 0, 0, 0, 0, 255]));
 * ```
 */
export async function encodePng(
  width: number,
  height: number,
  rgb: Uint8Array,
): Promise<Uint8Array> {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new TypeError(`a PNG needs a positive whole size, not ${width}×${height}`);
  }
  if (rgb.length !== width * height * 3) {
    throw new TypeError(`${width}×${height} RGB is ${width * height * 3} bytes, not ${rgb.length}`);
  }
  const stride = width * 3;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1);
    // Filter `Up`: each byte minus the byte above (the first row's "above" is zero).
    raw[row] = 2;
    for (let x = 0; x < stride; x++) {
      const above = y === 0 ? 0 : rgb[(y - 1) * stride + x];
      raw[row + 1 + x] = (rgb[y * stride + x] - above) & 0xff;
    }
  }
  const idat = await deflate(raw);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolor, deflate, adaptive filters, no interlace
  const chunks = [chunk("IHDR", header), chunk("IDAT", idat), chunk("IEND", new Uint8Array())];
  const out = new Uint8Array(8 + chunks.reduce((n, c) => n + c.length, 0));
  out.set(SIGNATURE, 0);
  let at = 8;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
