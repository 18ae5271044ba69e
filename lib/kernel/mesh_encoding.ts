/**
 * Mesh bytes on the wire (the render response, `EncodedMesh` in scene.ts) and the mesh hash
 * clients use to skip geometry they already hold. The codec is meshoptimizer's (the one behind
 * glTF's `KHR_meshopt_compression`), decoded in browsers by its own decoder
 * (`lib/client/mesh_decode.ts`):
 *
 * - order: `reorderMesh` (vertex cache then vertex fetch order, tuned for size) runs in the kernel
 *   before hashing (`reorderForWire`), and each triangle starts at the corner the index codec
 *   decodes it from, so the hash names exactly the geometry the kernel holds and clients decode;
 * - positions: per mesh and axis, Uint16 quantization over the mesh's bounding box (`min`,
 *   `scale`; a client decodes `p = min + q · scale`, within half a step, `extent / 131070`, of
 *   the kernel's Float32 value), padded to 8 bytes per vertex (x, y, z, 0) as the vertex codec
 *   wants a multiple of 4, then meshopt's vertex codec (version 1, level 2: the fewest bytes
 *   after compression over the examples, bench/render_bytes_bench.ts);
 * - indices: meshopt's index codec for triangle lists, 32-bit indices.
 *
 * The hash is over the exact geometry (Float32 positions then Uint32 indices, little-endian), not
 * the wire bytes: it names the geometry, whatever the encoding. Byte order is fixed to
 * little-endian whatever the host, so a hash and a payload mean the same on every machine.
 *
 * The meshopt encoder is WebAssembly: `await meshEncoderReady()` once before the sync functions.
 * Runs in workers too: only web APIs here.
 */

import type { EncodedMesh } from "../dag/scene.ts";
import { sha256HexOf } from "../dag/sha256.ts";
import { MeshoptEncoder } from "meshoptimizer/encoder";
import { MeshoptDecoder } from "meshoptimizer/decoder";

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

/** meshopt vertex codec version (1: `KHR_meshopt_compression`'s, smaller than 0). */
export const VERTEX_CODEC_VERSION = 1;
/** meshopt vertex codec level (0–3; 2 gave the fewest compressed bytes over the examples). */
export const VERTEX_CODEC_LEVEL = 2;
/** Bytes per vertex handed to the vertex codec: Uint16 x, y, z and a zero pad. */
export const VERTEX_STRIDE = 8;

let encoderReady = false;

/**
 * Resolves when meshopt's encoder (WebAssembly) is compiled; the sync functions below need it.
 *
 * @example
 * ```ts
 * await meshEncoderReady();
 * const mesh = encodeMesh(positions, indices);
 * ```
 */
export async function meshEncoderReady(): Promise<void> {
  await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
  encoderReady = true;
}

function encoder(): typeof MeshoptEncoder {
  if (!encoderReady) throw new Error("await meshEncoderReady() before encoding meshes");
  return MeshoptEncoder;
}

/** A mesh in the order it travels in, with its index buffer already coded. */
export interface WireMesh {
  /** Float32 x, y, z per vertex, in first-use order. */
  positions: Float32Array;
  /** Three vertex indices per triangle, each triangle from the corner the index codec keeps. */
  indices: Uint32Array;
  /** meshopt's index codec bytes that decode to exactly `indices` (for `encodeMesh`). */
  codedIndices: Uint8Array;
}

/**
 * The mesh in meshopt's order for transmission: triangles reordered for the vertex cache (tuned
 * for size) and vertices in first-use order; vertices no triangle uses are dropped. The geometry is
 * the same set of triangles; hash the result, not the input.
 *
 * @example
 * ```ts
 * const wire = reorderForWire(positions, indices);
 * const hash = await meshHash(wire.positions, wire.indices);
 * ```
 */
export function reorderForWire(positions: Float32Array, indices: Uint32Array): WireMesh {
  if (indices.length === 0) {
    const none = new Uint32Array();
    return { positions: new Float32Array(), indices: none, codedIndices: codeIndices(none) };
  }
  const vertexCount = positions.length / 3;
  for (let i = 0; i < indices.length; i++) {
    if (indices[i] >= vertexCount) {
      throw new RangeError(`index ${i} is ${indices[i]}, beyond ${vertexCount} vertices`);
    }
  }
  const codec = encoder();
  const reordered = new Uint32Array(indices);
  const [remap, unique] = codec.reorderMesh(reordered, true, true);
  // The index codec may start a triangle at another corner (same winding): hold the triangles as
  // they decode, so the client's indices are exactly these and the hash names them.
  const coded = codeIndices(reordered);
  const rotated = new Uint8Array(reordered.length * 4);
  MeshoptDecoder.decodeIndexBuffer(rotated, reordered.length, 4, coded);
  if (HOST_IS_LITTLE_ENDIAN) reordered.set(new Uint32Array(rotated.buffer));
  else {
    const view = new DataView(rotated.buffer);
    for (let i = 0; i < reordered.length; i++) reordered[i] = view.getUint32(i * 4, true);
  }
  const out = new Float32Array(unique * 3);
  for (let v = 0; v < vertexCount; v++) {
    const to = remap[v];
    if (to === 0xffffffff) continue;
    out[to * 3] = positions[v * 3];
    out[to * 3 + 1] = positions[v * 3 + 1];
    out[to * 3 + 2] = positions[v * 3 + 2];
  }
  return { positions: out, indices: reordered, codedIndices: coded };
}

/** meshopt's index codec bytes of a triangle list (32-bit indices). */
function codeIndices(indices: Uint32Array): Uint8Array {
  return encoder().encodeIndexBuffer(littleEndianBytes(indices), indices.length, 4);
}

/**
 * The meshopt-coded bytes of a triangle mesh (positions x, y, z per vertex; three indices per
 * triangle) with the quantization that decodes them: the vertex buffer of Uint16 x, y, z, 0 per
 * vertex and the index buffer. Call it on `reorderForWire`'s output (any order encodes; that one
 * encodes smallest), passing its `codedIndices`: they are the index buffer, not coded again.
 *
 * @example
 * ```ts
 * const { vertices, indices, min, scale } = encodeMeshBytes(wire.positions, wire.indices, wire.codedIndices);
 * ```
 */
export function encodeMeshBytes(
  positions: Float32Array,
  indices: Uint32Array,
  codedIndices?: Uint8Array,
): {
  vertices: Uint8Array;
  indices: Uint8Array;
  min: [number, number, number];
  scale: [number, number, number];
  vertexCount: number;
  triangleCount: number;
} {
  const codec = encoder();
  const vertexCount = positions.length / 3;
  const { q, min, scale } = quantizePositions(positions);
  const padded = new Uint16Array(vertexCount * 4);
  for (let v = 0; v < vertexCount; v++) {
    padded[v * 4] = q[v * 3];
    padded[v * 4 + 1] = q[v * 3 + 1];
    padded[v * 4 + 2] = q[v * 3 + 2];
  }
  const vertices = codec.encodeVertexBufferLevel(
    littleEndianBytes(padded),
    vertexCount,
    VERTEX_STRIDE,
    VERTEX_CODEC_LEVEL,
    VERTEX_CODEC_VERSION,
  );
  const coded = codedIndices ?? codeIndices(indices);
  return { vertices, indices: coded, min, scale, vertexCount, triangleCount: indices.length / 3 };
}

/**
 * The JSON wire form of a triangle mesh: `encodeMeshBytes` with both buffers in base64.
 * Decoded by `lib/client/mesh_decode.ts`.
 *
 * @example
 * ```ts
 * const mesh = encodeMesh(positions, indices); // { vertexCount, triangleCount, min, scale, vertices, indices }
 * ```
 */
export function encodeMesh(
  positions: Float32Array,
  indices: Uint32Array,
  codedIndices?: Uint8Array,
): EncodedMesh {
  const bytes = encodeMeshBytes(positions, indices, codedIndices);
  return {
    vertexCount: bytes.vertexCount,
    triangleCount: bytes.triangleCount,
    min: bytes.min,
    scale: bytes.scale,
    vertices: bytesToBase64(bytes.vertices),
    indices: bytesToBase64(bytes.indices),
  };
}

/**
 * Instance transforms for the binary render response: `values` (`stride` Float64 numbers per
 * instance: 3 for translations, 16 for matrices) through meshopt's vertex codec, losslessly.
 *
 * @example
 * ```ts
 * const bytes = encodeInstanceBytes([8, 8, 10, 24, 8, 10], 3); // two translations
 * ```
 */
export function encodeInstanceBytes(values: readonly number[], stride: 3 | 16): Uint8Array {
  const doubles = Float64Array.from(values);
  const view = new Uint8Array(doubles.buffer);
  if (!HOST_IS_LITTLE_ENDIAN) {
    for (let i = 0; i < view.length; i += 8) view.subarray(i, i + 8).reverse();
  }
  return encoder().encodeVertexBufferLevel(
    view,
    values.length / stride,
    stride * 8,
    VERTEX_CODEC_LEVEL,
    VERTEX_CODEC_VERSION,
  );
}
