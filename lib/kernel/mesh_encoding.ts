/**
 * Mesh bytes on the wire: Float32 positions and Uint32 indices as little-endian base64 (the
 * render response, `EncodedMesh` in scene.ts), and the mesh hash clients use to skip geometry
 * they already hold. Byte order is fixed to little-endian whatever the host, so a hash and a
 * payload mean the same on every machine; on the (usual) little-endian host the typed array's
 * own bytes are used without a copy.
 *
 * Runs in browsers and workers too: only web APIs here.
 */

import type { EncodedMesh } from "./scene.ts";

/** Whether this host stores numbers little-endian (typed arrays use the host's order). */
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The little-endian bytes of a 32-bit typed array (a view on LE hosts, a swapped copy on BE). */
export function littleEndianBytes(array: Float32Array | Uint32Array): Uint8Array {
  const view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  if (HOST_IS_LITTLE_ENDIAN) return view;
  const out = new Uint8Array(view.length);
  for (let i = 0; i < view.length; i += 4) {
    out[i] = view[i + 3];
    out[i + 1] = view[i + 2];
    out[i + 2] = view[i + 1];
    out[i + 3] = view[i];
  }
  return out;
}

/** Host-order bytes from little-endian bytes (a copy, 4-byte aligned for a typed array view). */
function hostBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  if (HOST_IS_LITTLE_ENDIAN) {
    out.set(bytes);
    return out;
  }
  for (let i = 0; i < bytes.length; i += 4) {
    out[i] = bytes[i + 3];
    out[i + 1] = bytes[i + 2];
    out[i + 2] = bytes[i + 1];
    out[i + 3] = bytes[i];
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

/** Little-endian base64 of a Float32Array (vertex positions). */
export function encodeFloat32(array: Float32Array): string {
  return bytesToBase64(littleEndianBytes(array));
}

/** Little-endian base64 of a Uint32Array (triangle indices). */
export function encodeUint32(array: Uint32Array): string {
  return bytesToBase64(littleEndianBytes(array));
}

/** A Float32Array from little-endian base64; throws a RangeError when the length is not 4k. */
export function decodeFloat32(text: string): Float32Array {
  const bytes = base64ToBytes(text);
  if (bytes.length % 4 !== 0) throw new RangeError("base64 length is not a multiple of 4 bytes");
  return new Float32Array(hostBytes(bytes).buffer);
}

/** A Uint32Array from little-endian base64; throws a RangeError when the length is not 4k. */
export function decodeUint32(text: string): Uint32Array {
  const bytes = base64ToBytes(text);
  if (bytes.length % 4 !== 0) throw new RangeError("base64 length is not a multiple of 4 bytes");
  return new Uint32Array(hostBytes(bytes).buffer);
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
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The wire form of a triangle mesh (positions x, y, z per vertex; three indices per triangle). */
export function encodeMesh(positions: Float32Array, indices: Uint32Array): EncodedMesh {
  return {
    positions: encodeFloat32(positions),
    indices: encodeUint32(indices),
    vertexCount: positions.length / 3,
    triangleCount: indices.length / 3,
  };
}

/** Typed arrays back from an EncodedMesh (for clients and tests). */
export function decodeMesh(mesh: EncodedMesh): { positions: Float32Array; indices: Uint32Array } {
  return { positions: decodeFloat32(mesh.positions), indices: decodeUint32(mesh.indices) };
}
