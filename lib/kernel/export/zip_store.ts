/**
 * A minimal ZIP writer (PKWARE APPNOTE 6.3: local headers, central directory, end record; no
 * ZIP64, no data descriptors), enough for the OPC package of a 3MF: entries are deflated with
 * node:zlib, or stored when deflate does not make them smaller.
 */
import { deflateRawSync } from "node:zlib";

/** One file of the archive. */
export interface ZipEntry {
  /** Path inside the archive, forward slashes, no leading slash. */
  name: string;
  data: Uint8Array;
}

/** Largest archive this writer makes (no ZIP64). */
const MAX_BYTES = 0xffffffff;

/**
 * The ZIP archive of `entries`, in their order.
 *
 * @example
 * ```ts
 * const zip = zipEntries([{ name: "a.txt", data: new TextEncoder().encode("hi") }]);
 * ```
 */
export function zipEntries(entries: ZipEntry[]): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = encoder.encode(entry.name);
    const crc = crc32(entry.data);
    const deflated = new Uint8Array(deflateRawSync(entry.data, { level: 6 }));
    const stored = deflated.length >= entry.data.length;
    const body = stored ? entry.data : deflated;
    const method = stored ? 0 : 8;
    const local = new Uint8Array(30 + name.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, 20, true); // version needed: 2.0 (deflate)
    l.setUint16(6, 0x0800, true); // UTF-8 names
    l.setUint16(8, method, true);
    l.setUint16(10, 0, true); // time 00:00:00
    l.setUint16(12, 0x21, true); // date 1980-01-01: the archive is a pure function of its entries
    l.setUint32(14, crc, true);
    l.setUint32(18, body.length, true);
    l.setUint32(22, entry.data.length, true);
    l.setUint16(26, name.length, true);
    l.setUint16(28, 0, true);
    local.set(name, 30);
    const record = new Uint8Array(46 + name.length);
    const c = new DataView(record.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, 20, true); // made by: 2.0, MS-DOS attributes
    c.setUint16(6, 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, method, true);
    c.setUint16(12, 0, true);
    c.setUint16(14, 0x21, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, body.length, true);
    c.setUint32(24, entry.data.length, true);
    c.setUint16(28, name.length, true);
    c.setUint32(42, offset, true);
    record.set(name, 46);
    parts.push(local, body);
    central.push(record);
    offset += local.length + body.length;
  }
  const centralSize = central.reduce((n, r) => n + r.length, 0);
  if (offset + centralSize + 22 > MAX_BYTES || entries.length > 0xffff) {
    throw new RangeError("the archive is too large for ZIP without ZIP64");
  }
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true);
  e.setUint16(8, entries.length, true);
  e.setUint16(10, entries.length, true);
  e.setUint32(12, centralSize, true);
  e.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + 22);
  let at = 0;
  for (const chunk of [...parts, ...central, end]) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, the ZIP checksum). */
export function crc32(data: Uint8Array): number {
  const table = CRC_TABLE;
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
