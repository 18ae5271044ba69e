/**
 * Mesh decoding: the render response carries each mesh as base64 of little-endian Float32 (x, y,
 * z per vertex) and Uint32 (three vertex indices per triangle) arrays (`lib/kernel/scene.ts`).
 * Typed arrays use the host's byte order, so on a little-endian host (every browser in practice)
 * the decoded bytes are viewed in place; on a big-endian host each element is read through a
 * `DataView` with the byte order stated explicitly. The result is checked against the counts the
 * server sent, and every index against the vertex count, so a broken mesh fails here rather than
 * as garbage on the GPU.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { EncodedMesh } from "../kernel/scene.ts";
import { decodeBase64 } from "./base64.ts";

/** Whether this machine stores multi-byte numbers little-endian first. */
export const HOST_IS_LITTLE_ENDIAN: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

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

/** Options for decoding; tests use `littleEndianHost` to run the big-endian path anywhere. */
export interface DecodeOptions {
  /** Treat the host as little-endian (default: what it really is). */
  littleEndianHost?: boolean;
}

/**
 * Decodes base64 little-endian Float32 values; throws `TypeError` when the byte count is not
 * `4 · expectedLength` (when given) or not a multiple of 4.
 *
 * @example
 * ```ts
 * decodeFloat32LE("AACAPw=="); // Float32Array [1]
 * ```
 */
export function decodeFloat32LE(
  base64: string,
  expectedLength?: number,
  options: DecodeOptions = {},
): Float32Array<ArrayBuffer> {
  const bytes = decodeChecked(base64, expectedLength, "positions");
  if (options.littleEndianHost ?? HOST_IS_LITTLE_ENDIAN) return new Float32Array(bytes.buffer);
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Decodes base64 little-endian Uint32 values; throws `TypeError` when the byte count is not
 * `4 · expectedLength` (when given) or not a multiple of 4.
 *
 * @example
 * ```ts
 * decodeUint32LE("AQAAAA=="); // Uint32Array [1]
 * ```
 */
export function decodeUint32LE(
  base64: string,
  expectedLength?: number,
  options: DecodeOptions = {},
): Uint32Array<ArrayBuffer> {
  const bytes = decodeChecked(base64, expectedLength, "indices");
  if (options.littleEndianHost ?? HOST_IS_LITTLE_ENDIAN) return new Uint32Array(bytes.buffer);
  const view = new DataView(bytes.buffer);
  const out = new Uint32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, true);
  return out;
}

/**
 * Decodes one mesh of a render response and checks it: array lengths match `vertexCount` and
 * `triangleCount`, and every index names a vertex. Throws `TypeError` on any mismatch.
 *
 * @example
 * ```ts
 * const mesh = decodeMesh(hash, response.meshes[hash]);
 * geometry.setAttribute("position", new BufferAttribute(mesh.positions, 3));
 * ```
 */
export function decodeMesh(
  hash: string,
  encoded: EncodedMesh,
  options: DecodeOptions = {},
): DecodedMesh {
  const { vertexCount, triangleCount } = encoded;
  if (!isCount(vertexCount) || !isCount(triangleCount)) {
    throw new TypeError(`mesh ${hash}: vertexCount and triangleCount must be counts`);
  }
  if (typeof encoded.positions !== "string" || typeof encoded.indices !== "string") {
    throw new TypeError(`mesh ${hash}: positions and indices must be base64 strings`);
  }
  const positions = decodeFloat32LE(encoded.positions, vertexCount * 3, options);
  const indices = decodeUint32LE(encoded.indices, triangleCount * 3, options);
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

function decodeChecked(
  base64: string,
  expectedLength: number | undefined,
  what: string,
): Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = decodeBase64(base64);
  } catch (err) {
    throw new TypeError(`${what}: not valid base64`, { cause: err });
  }
  if (bytes.byteLength % 4 !== 0) {
    throw new TypeError(
      `${what}: ${bytes.byteLength} bytes is not a whole number of 4-byte values`,
    );
  }
  if (expectedLength !== undefined && bytes.byteLength !== expectedLength * 4) {
    throw new TypeError(`${what}: expected ${expectedLength} values, got ${bytes.byteLength / 4}`);
  }
  // Typed views over the whole buffer need it to hold exactly these bytes from offset 0 (a fresh
  // decode does; copy otherwise).
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength
    ? bytes
    : bytes.slice();
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
