/**
 * Mesh decoding: the render response carries each mesh compactly (`EncodedMesh` in
 * `lib/dag/scene.ts`, written by `lib/kernel/mesh_encoding.ts`):
 *
 * - positions: base64 of little-endian Uint16 `q` per coordinate; coordinate k of a vertex is
 *   `min[k] + q · scale[k]`, within half a step (`scale[k] / 2`) of the kernel's value, then
 *   rounded to Float32 for the GPU;
 * - indices: base64 of LEB128 varints, each the zigzag-mapped difference from the previous index
 *   (the first from 0).
 *
 * Bytes are read one by one, so the host's byte order never matters. The result is checked
 * against the counts the server sent, and every index against the vertex count, so a broken mesh
 * fails here rather than as garbage on the GPU.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { EncodedMesh } from "../dag/scene.ts";
import { decodeBase64 } from "./base64.ts";

/** A mesh ready for a viewer (three.js `BufferGeometry` takes both arrays as they are). */
export interface DecodedMesh {
  /** The mesh hash the server named it by. */
  hash: string;
  /** x, y, z per vertex. */
  positions: Float32Array<ArrayBuffer>;
  /** Three vertex indices per triangle. */
  indices: Uint32Array<ArrayBuffer>;
  vertexCount: number;
  triangleCount: number;
  /** Bytes held by the two arrays (what the geometry cache counts). */
  byteLength: number;
}

/** Per-axis dequantization: coordinate k is `min[k] + q · scale[k]`. */
export interface Quantization {
  min: readonly number[];
  scale: readonly number[];
}

/**
 * Positions from base64 little-endian Uint16 values and their quantization; throws `TypeError`
 * when the byte count is not `2 · expectedLength` (when given) or not even.
 *
 * @example
 * ```ts
 * decodeQuantizedPositions("AAD//w==", { min: [1, 0, 0], scale: [0.5, 0, 0] }); // [1, …]
 * ```
 */
export function decodeQuantizedPositions(
  base64: string,
  quantization: Quantization,
  expectedLength?: number,
): Float32Array<ArrayBuffer> {
  const bytes = decodeChecked(base64, "positions");
  if (bytes.byteLength % 2 !== 0) {
    throw new TypeError(`positions: ${bytes.byteLength} bytes is not a whole number of Uint16s`);
  }
  const count = bytes.byteLength / 2;
  if (expectedLength !== undefined && count !== expectedLength) {
    throw new TypeError(`positions: expected ${expectedLength} values, got ${count}`);
  }
  const { min, scale } = quantization;
  const out = new Float32Array(count);
  for (let i = 0, k = 0; i < count; i++, k = k === 2 ? 0 : k + 1) {
    out[i] = min[k] + (bytes[2 * i] | (bytes[2 * i + 1] << 8)) * scale[k];
  }
  return out;
}

/**
 * Indices from base64 zigzag-delta LEB128 varints; throws `TypeError` on a truncated or
 * over-long varint, an index outside Uint32, trailing bytes, or a count other than
 * `expectedLength` (when given).
 *
 * @example
 * ```ts
 * decodeIndexDeltas("AAICAQ=="); // Uint32Array [0, 1, 2, 1]
 * ```
 */
export function decodeIndexDeltas(
  base64: string,
  expectedLength?: number,
): Uint32Array<ArrayBuffer> {
  const bytes = decodeChecked(base64, "indices");
  // Every index takes at least one byte: the byte count bounds the array.
  if (expectedLength !== undefined && expectedLength > bytes.byteLength) {
    throw new TypeError(
      `indices: expected ${expectedLength} values, got ${bytes.byteLength} bytes`,
    );
  }
  const values = new Uint32Array(expectedLength ?? bytes.byteLength);
  let count = 0;
  let previous = 0;
  let pos = 0;
  while (pos < bytes.length) {
    if (count === values.length) {
      throw new TypeError(`indices: more than the expected ${values.length} values`);
    }
    let z = 0;
    let factor = 1;
    for (let b = 0;; b++) {
      if (b === 5) throw new TypeError(`indices: varint ${count} is longer than 5 bytes`);
      if (pos === bytes.length) throw new TypeError(`indices: varint ${count} is cut short`);
      const byte = bytes[pos++];
      z += (byte & 0x7f) * factor;
      factor *= 0x80;
      if (byte < 0x80) break;
    }
    const index = previous + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    if (index < 0 || index > 0xffffffff) {
      throw new TypeError(`indices: value ${count} is ${index}, outside Uint32`);
    }
    values[count++] = index;
    previous = index;
  }
  if (expectedLength !== undefined && count !== expectedLength) {
    throw new TypeError(`indices: expected ${expectedLength} values, got ${count}`);
  }
  return count === values.length ? values : values.slice(0, count);
}

/**
 * Decodes one mesh of a render response and checks it: array lengths match `vertexCount` and
 * `triangleCount`, `min` and `scale` are three finite numbers each, and every index names a
 * vertex. Throws `TypeError` on any mismatch.
 *
 * @example
 * ```ts
 * const mesh = decodeMesh(hash, response.meshes[hash]);
 * geometry.setAttribute("position", new BufferAttribute(mesh.positions, 3));
 * ```
 */
export function decodeMesh(hash: string, encoded: EncodedMesh): DecodedMesh {
  const { vertexCount, triangleCount } = encoded;
  if (!isCount(vertexCount) || !isCount(triangleCount)) {
    throw new TypeError(`mesh ${hash}: vertexCount and triangleCount must be counts`);
  }
  if (typeof encoded.positions !== "string" || typeof encoded.indices !== "string") {
    throw new TypeError(`mesh ${hash}: positions and indices must be base64 strings`);
  }
  if (!isVec3(encoded.min) || !isVec3(encoded.scale) || encoded.scale.some((s) => s < 0)) {
    throw new TypeError(
      `mesh ${hash}: min and scale must be three finite numbers (scale not negative)`,
    );
  }
  const positions = decodeQuantizedPositions(encoded.positions, encoded, vertexCount * 3);
  const indices = decodeIndexDeltas(encoded.indices, triangleCount * 3);
  for (let i = 0; i < indices.length; i++) {
    if (indices[i] >= vertexCount) {
      throw new TypeError(
        `mesh ${hash}: index ${i} is ${indices[i]}, beyond ${vertexCount} vertices`,
      );
    }
  }
  return {
    hash,
    positions,
    indices,
    vertexCount,
    triangleCount,
    byteLength: positions.byteLength + indices.byteLength,
  };
}

function decodeChecked(base64: string, what: string): Uint8Array<ArrayBuffer> {
  try {
    return decodeBase64(base64);
  } catch (err) {
    throw new TypeError(`${what}: not valid base64`, { cause: err });
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isVec3(value: unknown): value is [number, number, number] {
  return Array.isArray(value) && value.length === 3 &&
    value.every((v) => typeof v === "number" && Number.isFinite(v));
}
