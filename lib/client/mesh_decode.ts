/**
 * Mesh decoding: the render response carries each mesh as meshoptimizer-coded buffers
 * (`lib/kernel/mesh_encoding.ts`, docs/api.md, render), decoded here by meshopt's own decoder
 * (WebAssembly, bundled with this code; nothing is fetched at run time):
 *
 * - vertices: the vertex codec over Uint16 x, y, z, 0 per vertex (8 bytes); coordinate k of a
 *   vertex is `min[k] + q · scale[k]`, within half a step (`scale[k] / 2`) of the kernel's value,
 *   then rounded to Float32 for the GPU;
 * - indices: the index codec over the triangle list, 32-bit indices.
 *
 * The result is checked against the counts the server sent, and every index against the vertex
 * count, so a broken mesh fails here with a `TypeError` rather than as garbage on the GPU.
 *
 * The decoder is WebAssembly: `await meshDecoderReady()` once before the sync functions.
 * Runs in browsers: no Deno APIs here.
 */

import { MeshoptDecoder } from "meshoptimizer/decoder";
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

/** What a mesh's buffers decode with: counts and per-axis dequantization. */
export interface MeshLayout {
  vertexCount: number;
  triangleCount: number;
  /** Coordinate k is `min[k] + q · scale[k]`. */
  min: readonly number[];
  scale: readonly number[];
}

/** The most vertices or triangles one mesh may claim (far above the kernel's triangle limit). */
export const MAX_MESH_ELEMENTS = 1 << 24;

const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

let decoderReady = false;

/**
 * Resolves when meshopt's decoder (WebAssembly, compiled from bytes inside the bundle) is ready;
 * `decodeMesh` and `decodeMeshBuffers` need it.
 *
 * @example
 * ```ts
 * await meshDecoderReady();
 * const mesh = decodeMesh(hash, response.meshes[hash]);
 * ```
 */
export async function meshDecoderReady(): Promise<void> {
  await MeshoptDecoder.ready;
  decoderReady = true;
}

/**
 * Decodes one mesh from its meshopt buffers and checks it: counts are counts, `min` and `scale`
 * three finite numbers each (scale not negative), both buffers decode, and every index names a
 * vertex. Throws `TypeError` on any mismatch.
 *
 * @example
 * ```ts
 * const mesh = decodeMeshBuffers(hash, layout, vertexBytes, indexBytes);
 * ```
 */
export function decodeMeshBuffers(
  hash: string,
  layout: MeshLayout,
  vertices: Uint8Array,
  indices: Uint8Array,
): DecodedMesh {
  if (!decoderReady) throw new Error("await meshDecoderReady() before decoding meshes");
  const { vertexCount, triangleCount, min, scale } = layout;
  if (!isCount(vertexCount) || !isCount(triangleCount)) {
    throw new TypeError(
      `mesh ${hash}: vertexCount and triangleCount must be counts up to ${MAX_MESH_ELEMENTS}`,
    );
  }
  if (!isVec3(min) || !isVec3(scale) || scale.some((s) => s < 0)) {
    throw new TypeError(
      `mesh ${hash}: min and scale must be three finite numbers (scale not negative)`,
    );
  }
  const quantized = new Uint8Array(vertexCount * 8);
  try {
    MeshoptDecoder.decodeVertexBuffer(quantized, vertexCount, 8, vertices);
  } catch (err) {
    throw new TypeError(
      `mesh ${hash}: vertices do not decode as ${vertexCount} vertices (${message(err)})`,
      { cause: err },
    );
  }
  const indexBytes = new Uint8Array(triangleCount * 12);
  try {
    MeshoptDecoder.decodeIndexBuffer(indexBytes, triangleCount * 3, 4, indices);
  } catch (err) {
    throw new TypeError(
      `mesh ${hash}: indices do not decode as ${triangleCount} triangles (${message(err)})`,
      { cause: err },
    );
  }
  const positions = new Float32Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) {
    for (let k = 0; k < 3; k++) {
      const b = v * 8 + k * 2;
      positions[v * 3 + k] = min[k] + (quantized[b] | (quantized[b + 1] << 8)) * scale[k];
    }
  }
  const out = HOST_IS_LITTLE_ENDIAN
    ? new Uint32Array(indexBytes.buffer)
    : Uint32Array.from({ length: triangleCount * 3 }, (_, i) => {
      const b = i * 4;
      return (indexBytes[b] | indexBytes[b + 1] << 8 | indexBytes[b + 2] << 16) +
        indexBytes[b + 3] * 0x1000000;
    });
  for (let i = 0; i < out.length; i++) {
    if (out[i] >= vertexCount) {
      throw new TypeError(`mesh ${hash}: index ${i} is ${out[i]}, beyond ${vertexCount} vertices`);
    }
  }
  return {
    hash,
    positions,
    indices: out,
    vertexCount,
    triangleCount,
    byteLength: positions.byteLength + out.byteLength,
  };
}

/**
 * Instance transforms of the binary render response: `count` instances of `stride` Float64
 * values (3: translations, 16: matrices) from meshopt's vertex codec. Throws `TypeError` when the
 * bytes do not decode or a value is not finite.
 *
 * @example
 * ```ts
 * decodeInstanceBuffer(bytes, 1024, 3); // 3072 numbers
 * ```
 */
export function decodeInstanceBuffer(bytes: Uint8Array, count: number, stride: 3 | 16): number[] {
  if (!decoderReady) throw new Error("await meshDecoderReady() before decoding meshes");
  if (!isCount(count)) throw new TypeError(`instances: ${count} is not a count`);
  const target = new Uint8Array(count * stride * 8);
  try {
    MeshoptDecoder.decodeVertexBuffer(target, count, stride * 8, bytes);
  } catch (err) {
    throw new TypeError(
      `instances do not decode as ${count} × ${stride} numbers (${message(err)})`,
      {
        cause: err,
      },
    );
  }
  const view = new DataView(target.buffer);
  const out = new Array<number>(count * stride);
  for (let i = 0; i < out.length; i++) {
    out[i] = view.getFloat64(i * 8, true);
    if (!Number.isFinite(out[i])) throw new TypeError(`instances: value ${i} is not finite`);
  }
  return out;
}

/**
 * Decodes one mesh of a JSON render response (`vertices` and `indices` in base64) with the checks
 * of `decodeMeshBuffers`. Throws `TypeError` on any mismatch.
 *
 * @example
 * ```ts
 * await meshDecoderReady();
 * const mesh = decodeMesh(hash, response.meshes[hash]);
 * geometry.setAttribute("position", new BufferAttribute(mesh.positions, 3));
 * ```
 */
export function decodeMesh(hash: string, encoded: EncodedMesh): DecodedMesh {
  if (typeof encoded.vertices !== "string" || typeof encoded.indices !== "string") {
    throw new TypeError(`mesh ${hash}: vertices and indices must be base64 strings`);
  }
  return decodeMeshBuffers(
    hash,
    encoded,
    decodeChecked(encoded.vertices, hash, "vertices"),
    decodeChecked(encoded.indices, hash, "indices"),
  );
}

function decodeChecked(base64: string, hash: string, what: string): Uint8Array<ArrayBuffer> {
  try {
    return decodeBase64(base64);
  } catch (err) {
    throw new TypeError(`mesh ${hash}: ${what} is not valid base64`, { cause: err });
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 &&
    value <= MAX_MESH_ELEMENTS;
}

function isVec3(value: unknown): value is [number, number, number] {
  return Array.isArray(value) && value.length === 3 &&
    value.every((v) => typeof v === "number" && Number.isFinite(v));
}
