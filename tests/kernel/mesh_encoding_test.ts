/**
 * Mesh bytes on the wire: little-endian bytes whatever the width, Uint16 quantization over the
 * mesh's box, zigzag-delta varint indices, the fallback base64 encoder for engines without
 * `toBase64`, and the SHA-256 mesh hash over the exact geometry. (Decoding and the round trip
 * are in tests/client/mesh_decode_test.ts.)
 */
import assert from "node:assert/strict";
import {
  base64ToBytes,
  bytesToBase64,
  encodeIndexDeltas,
  encodeMesh,
  littleEndianBytes,
  meshHash,
  QUANT_MAX,
  quantizePositions,
} from "@/lib/kernel/mesh_encoding.ts";

Deno.test("kernel - mesh encoding: little-endian bytes of 16- and 32-bit arrays", () => {
  assert.deepEqual([...littleEndianBytes(new Uint32Array([0x0a0b0c0d]))], [0x0d, 0x0c, 0x0b, 0x0a]);
  assert.deepEqual([...littleEndianBytes(new Uint16Array([0x0102, 0xfffe]))], [2, 1, 0xfe, 0xff]);
  assert.deepEqual([...littleEndianBytes(new Float32Array([1]))], [0, 0, 0x80, 0x3f]);
  const window = new Uint16Array([1, 2, 3]).subarray(1, 2);
  assert.deepEqual([...littleEndianBytes(window)], [2, 0], "a view into a larger buffer");
});

Deno.test("kernel - mesh encoding: positions quantize per axis over the mesh's box", () => {
  const positions = new Float32Array([-1, 5, 2, 3, 5, 2, 1, 5, 2.5]);
  const { q, min, scale } = quantizePositions(positions);
  assert.deepEqual(min, [-1, 5, 2]);
  assert.deepEqual(scale, [4 / QUANT_MAX, 0, 0.5 / QUANT_MAX], "a flat axis has step 0");
  assert.deepEqual([...q], [0, 0, 0, QUANT_MAX, 0, 0, 32768, 0, QUANT_MAX]);
  assert.deepEqual(quantizePositions(new Float32Array([-0, -0, -0])).min, [0, 0, 0], "-0 is 0");
  const empty = quantizePositions(new Float32Array());
  assert.deepEqual([empty.q.length, empty.min, empty.scale], [0, [0, 0, 0], [0, 0, 0]]);
  assert.throws(() => quantizePositions(new Float32Array([0, NaN, 0])), RangeError);
  assert.throws(() => quantizePositions(new Float32Array([0, 0, Infinity])), RangeError);
});

Deno.test("kernel - mesh encoding: indices are zigzag deltas as LEB128 varints", () => {
  // 0 → 0; +1 → 2; +1 → 2; −1 → 1; +64 → 128 = [0x80, 0x01]; −65 → 129 = [0x81, 0x01].
  assert.deepEqual(
    [...encodeIndexDeltas(new Uint32Array([0, 1, 2, 1, 65, 0]))],
    [0, 2, 2, 1, 0x80, 0x01, 0x81, 0x01],
  );
  // The largest jumps: +(2³² − 1) → 2³³ − 2 and back → 2³³ − 3, five bytes each.
  const big = encodeIndexDeltas(new Uint32Array([0xffffffff, 0]));
  assert.deepEqual([...big], [0xfe, 0xff, 0xff, 0xff, 0x1f, 0xfd, 0xff, 0xff, 0xff, 0x1f]);
  assert.equal(encodeIndexDeltas(new Uint32Array()).length, 0);
});

Deno.test("kernel - mesh encoding: the wire form carries counts, box and base64 members", () => {
  const mesh = encodeMesh(
    new Float32Array([0, 0, 0, 2, 0, 0, 0, 1, 0]),
    new Uint32Array([0, 1, 2]),
  );
  assert.equal(mesh.vertexCount, 3);
  assert.equal(mesh.triangleCount, 1);
  assert.deepEqual(mesh.min, [0, 0, 0]);
  assert.deepEqual(mesh.scale, [2 / QUANT_MAX, 1 / QUANT_MAX, 0]);
  assert.deepEqual(
    [...base64ToBytes(mesh.positions)],
    [0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0],
  );
  assert.deepEqual([...base64ToBytes(mesh.indices)], [0, 2, 2]);
  const empty = encodeMesh(new Float32Array(), new Uint32Array());
  assert.deepEqual(empty, {
    positions: "",
    min: [0, 0, 0],
    scale: [0, 0, 0],
    indices: "",
    vertexCount: 0,
    triangleCount: 0,
  });
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

Deno.test("kernel - mesh encoding: the hash is SHA-256 over the exact positions then indices, little-endian", async () => {
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
