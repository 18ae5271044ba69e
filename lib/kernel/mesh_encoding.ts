/**
 * Mesh bytes on the wire (the render response, `EncodedMesh` in scene.ts) and the mesh hash
 * clients use to skip geometry they already hold.
 *
 * - positions: per mesh and axis, Uint16 quantization over the mesh's bounding box (`min`,
 *   `scale`; a client decodes `p = min + q · scale`, within half a step, `extent / 131070`, of
 *   the kernel's Float32 value), little-endian, base64;
 * - indices: zigzag-mapped differences of consecutive indices as LEB128 varints, base64.
 *
 * The hash is over the exact geometry (Float32 positions then Uint32 indices, little-endian), not
 * the wire bytes: it names the geometry, whatever the encoding. Byte order is fixed to
 * little-endian whatever the host, so a hash and a payload mean the same on every machine.
 *
 * Runs in browsers and workers too: only web APIs here.
 */

import type { EncodedMesh } from "../dag/scene.ts";
import { sha256HexOf } from "../dag/sha256.ts";

/** Whether this host stores numbers little-endian (typed arrays use the host's order). */
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The little-endian bytes of a typed array of 2- or 4-byte numbers (a view on LE hosts, a
 * byte-swapped copy on BE hosts).
 */
export function littleEndianBytes(array: Float32Array | Uint32Array | Uint16Array): Uint8Array {
  const view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  if (HOST_IS_LITTLE_ENDIAN) return view;
  const width = array.BYTES_PER_ELEMENT;
  const out = new Uint8Array(view.length);
  for (let i = 0; i < view.length; i += width) {
    for (let b = 0; b < width; b++) out[i + b] = view[i + width - 1 - b];
  }
  return out;
}

/** The ES2026 base64 methods, where the engine has them (Deno 2.5+, recent browsers). */
interface Base64Uint8Array extends Uint8Array {
  toBase64(): string;
}
interface Base64Uint8ArrayConstructor {
  fromBase64(text: string): Uint8Array;
}

/** String.fromCharCode takes its arguments on the stack: stay well under engine limits. */
const CHUNK = 0x8000;

/**
 * Standard base64 (with padding) of bytes.
 *
 * @example
 * ```ts
 * bytesToBase64(new Uint8Array([1, 2, 3])); // "AQID"
 * ```
 */
export function bytesToBase64(bytes: Uint8Array): string {
  if (typeof (bytes as Base64Uint8Array).toBase64 === "function") {
    return (bytes as Base64Uint8Array).toBase64();
  }
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** Bytes of standard base64; throws a SyntaxError (or DOMException) on malformed input. */
export function base64ToBytes(text: string): Uint8Array {
  const ctor = Uint8Array as unknown as Partial<Base64Uint8ArrayConstructor>;
  if (typeof ctor.fromBase64 === "function") return ctor.fromBase64(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * SHA-256 (lowercase hex) over the little-endian bytes of positions followed by those of indices:
 * equal geometry has equal hashes on every host, so a client can keep meshes across renders.
 *
 * @example
 * ```ts
 * const hash = await meshHash(positions, indices); // "9f2c…", 64 hex digits
 * ```
 */
export async function meshHash(positions: Float32Array, indices: Uint32Array): Promise<string> {
  const a = littleEndianBytes(positions);
  const b = littleEndianBytes(indices);
  const all = new Uint8Array(a.length + b.length);
  all.set(a, 0);
  all.set(b, a.length);
  return await sha256HexOf(all);
}

/** Quantization steps per axis: positions travel as Uint16, 0 … 65535 across the mesh's box. */
export const QUANT_MAX = 65535;

/**
 * Uint16 quantization of positions over the mesh's own bounding box, per axis: the axis minimum
 * `min[k]` and step `scale[k] = (max[k] − min[k]) / 65535`; `q = round((p − min) / scale)`, so
 * `min + q · scale` is within half a step (`extent / 131070`) of `p`. A flat axis has scale 0
 * and every q 0. Throws a RangeError on a non-finite coordinate.
 *
 * @example
 * ```ts
 * quantizePositions(new Float32Array([0, 0, 0, 2, 1, 0])).scale; // [2 / 65535, 1 / 65535, 0]
 * ```
 */
export function quantizePositions(positions: Float32Array): {
  q: Uint16Array;
  min: [number, number, number];
  scale: [number, number, number];
} {
  const min: [number, number, number] = [0, 0, 0];
  const scale: [number, number, number] = [0, 0, 0];
  const q = new Uint16Array(positions.length);
  if (positions.length === 0) return { q, min, scale };
  for (let k = 0; k < 3; k++) {
    let lo = Infinity, hi = -Infinity;
    for (let i = k; i < positions.length; i += 3) {
      const v = positions[i];
      if (!Number.isFinite(v)) throw new RangeError(`position ${i} is not finite: ${v}`);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    min[k] = lo + 0; // -0 → 0: equal geometry, equal bytes
    scale[k] = (hi - lo) / QUANT_MAX;
    if (scale[k] === 0) continue;
    for (let i = k; i < positions.length; i += 3) {
      q[i] = Math.min(QUANT_MAX, Math.round((positions[i] - lo) / scale[k]));
    }
  }
  return { q, min, scale };
}

/**
 * Indices as LEB128 varints of the zigzag-mapped differences between consecutive indices (the
 * first from 0): neighbouring triangles share nearby vertices, so most take one or two bytes
 * instead of four. Any Uint32 value round-trips (a difference needs at most 33 bits, 5 bytes).
 *
 * @example
 * ```ts
 * [...encodeIndexDeltas(new Uint32Array([0, 1, 2, 1]))]; // [0, 2, 2, 1]
 * ```
 */
export function encodeIndexDeltas(indices: Uint32Array): Uint8Array {
  const out = new Uint8Array(indices.length * 5);
  let n = 0;
  let previous = 0;
  for (let i = 0; i < indices.length; i++) {
    const delta = indices[i] - previous;
    previous = indices[i];
    // Plain arithmetic, not bit operations: deltas span ±(2³² − 1).
    let z = delta >= 0 ? delta * 2 : -delta * 2 - 1;
    while (z >= 0x80) {
      out[n++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    out[n++] = z;
  }
  return out.slice(0, n);
}

/**
 * The wire form of a triangle mesh (positions x, y, z per vertex; three indices per triangle):
 * Uint16-quantized positions (little-endian, base64) with their `min` and `scale`, and
 * zigzag-delta varint indices (base64). Decoded by `lib/client/mesh_decode.ts`.
 */
export function encodeMesh(positions: Float32Array, indices: Uint32Array): EncodedMesh {
  const { q, min, scale } = quantizePositions(positions);
  return {
    positions: bytesToBase64(littleEndianBytes(q)),
    min,
    scale,
    indices: bytesToBase64(encodeIndexDeltas(indices)),
    vertexCount: positions.length / 3,
    triangleCount: indices.length / 3,
  };
}
