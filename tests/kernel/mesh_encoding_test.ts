/**
 * Mesh bytes on the wire: little-endian base64 of Float32 positions and Uint32 indices, the
 * fallback encoder for engines without `toBase64`, and the SHA-256 mesh hash.
 */
import assert from "node:assert/strict";
import {
  base64ToBytes,
  bytesToBase64,
  decodeFloat32,
  decodeMesh,
  decodeUint32,
  encodeFloat32,
  encodeMesh,
  encodeUint32,
  littleEndianBytes,
  meshHash,
} from "@/lib/kernel/mesh_encoding.ts";

Deno.test("kernel - mesh encoding: little-endian bytes of known values", () => {
  assert.equal(encodeFloat32(new Float32Array([1])), "AACAPw=="); // 00 00 80 3f
  assert.equal(encodeUint32(new Uint32Array([1, 0x01020304])), "AQAAAAQDAgE=");
  assert.deepEqual([...littleEndianBytes(new Uint32Array([0x0a0b0c0d]))], [0x0d, 0x0c, 0x0b, 0x0a]);
  const view = new DataView(base64ToBytes(encodeFloat32(new Float32Array([-2.5, 1e-3]))).buffer);
  assert.equal(view.getFloat32(0, true), -2.5);
  assert.equal(view.getFloat32(4, true), Math.fround(1e-3));
});

Deno.test("kernel - mesh encoding: round trips, including views into larger buffers and empty arrays", () => {
  const positions = new Float32Array([0, -0.5, 3.25, 1e6, -1e6, Math.PI]);
  assert.deepEqual(decodeFloat32(encodeFloat32(positions)), positions);
  const indices = new Uint32Array([0, 1, 2, 4294967295, 7, 8]);
  assert.deepEqual(decodeUint32(encodeUint32(indices)), indices);
  const window = indices.subarray(2, 5);
  assert.deepEqual(decodeUint32(encodeUint32(window)), new Uint32Array([2, 4294967295, 7]));
  assert.equal(encodeFloat32(new Float32Array()), "");
  assert.deepEqual(decodeFloat32(""), new Float32Array());
  assert.throws(() => decodeUint32("AQID"), RangeError); // 3 bytes
  const mesh = encodeMesh(new Float32Array(9), new Uint32Array([0, 1, 2]));
  assert.equal(mesh.vertexCount, 3);
  assert.equal(mesh.triangleCount, 1);
  assert.deepEqual(decodeMesh(mesh).indices, new Uint32Array([0, 1, 2]));
});

Deno.test("kernel - mesh encoding: the chunked btoa fallback equals toBase64", () => {
  const bytes = new Uint8Array(100_003);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 255;
  const fast = bytesToBase64(bytes);
  const proto = Uint8Array.prototype as unknown as Record<string, unknown>;
  const saved = proto.toBase64;
  const ctor = Uint8Array as unknown as Record<string, unknown>;
  const savedFrom = ctor.fromBase64;
  try {
    delete proto.toBase64;
    delete ctor.fromBase64;
    assert.equal(typeof proto.toBase64, "undefined", "the fallback path is the one tested");
    const slow = bytesToBase64(bytes);
    assert.equal(slow, fast);
    assert.deepEqual(base64ToBytes(slow), bytes);
  } finally {
    if (saved) proto.toBase64 = saved;
    if (savedFrom) ctor.fromBase64 = savedFrom;
  }
});

Deno.test("kernel - mesh encoding: the hash is SHA-256 over positions then indices, little-endian", async () => {
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  const indices = new Uint32Array([0, 1, 2]);
  const hash = await meshHash(positions, indices);
  assert.match(hash, /^[0-9a-f]{64}$/);
  const all = new Uint8Array(positions.byteLength + indices.byteLength);
  const view = new DataView(all.buffer);
  positions.forEach((v, i) => view.setFloat32(i * 4, v, true));
  indices.forEach((v, i) => view.setUint32(positions.byteLength + i * 4, v, true));
  const expected = [...new Uint8Array(await crypto.subtle.digest("SHA-256", all))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(hash, expected);
  assert.equal(await meshHash(positions, indices), hash, "deterministic");
  assert.notEqual(await meshHash(positions, new Uint32Array([0, 2, 1])), hash);
  assert.notEqual(await meshHash(new Float32Array([0, 0, 0, 1, 0, 0, 0, 2, 0]), indices), hash);
});
