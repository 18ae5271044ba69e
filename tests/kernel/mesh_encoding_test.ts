/**
 * Mesh bytes on the wire: little-endian bytes whatever the width, Uint16 quantization over the
 * mesh's box, meshopt order and codecs, the round trip of every example's meshes through the
 * client's decoder, the fallback base64 encoder for engines without `toBase64`, and the SHA-256
 * mesh hash over the exact geometry. (Refusal of broken buffers is in
 * tests/client/mesh_decode_test.ts.)
 */
import assert from "node:assert/strict";
import {
  base64ToBytes,
  bytesToBase64,
  encodeMesh,
  littleEndianBytes,
  meshEncoderReady,
  meshHash,
  QUANT_MAX,
  quantizePositions,
  reorderForWire,
} from "@/lib/kernel/mesh_encoding.ts";
import { decodeMesh, meshDecoderReady } from "@/lib/client/mesh_decode.ts";
import { evaluateDagExact } from "@/lib/kernel/evaluate.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";

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

Deno.test("kernel - mesh encoding: the wire form carries counts, box and meshopt buffers", async () => {
  await meshEncoderReady();
  await meshDecoderReady();
  const positions = new Float32Array([0, 0, 0, 2, 0, 0, 0, 1, 0]);
  const mesh = encodeMesh(positions, new Uint32Array([0, 1, 2]));
  assert.equal(mesh.vertexCount, 3);
  assert.equal(mesh.triangleCount, 1);
  assert.deepEqual(mesh.min, [0, 0, 0]);
  assert.deepEqual(mesh.scale, [2 / QUANT_MAX, 1 / QUANT_MAX, 0]);
  // meshopt's vertex codec v1 starts with 0xa1, its index codec with 0xe1.
  assert.equal(base64ToBytes(mesh.vertices)[0], 0xa1);
  assert.equal(base64ToBytes(mesh.indices)[0], 0xe1);
  const decoded = decodeMesh("h", mesh);
  assert.deepEqual([...decoded.positions], [...positions]);
  assert.deepEqual([...decoded.indices], [0, 1, 2]);
  const empty = decodeMesh("e", encodeMesh(new Float32Array(), new Uint32Array()));
  assert.deepEqual([empty.vertexCount, empty.triangleCount], [0, 0]);
});

Deno.test("kernel - mesh encoding: reorderForWire keeps every triangle and drops unused vertices", async () => {
  await meshEncoderReady();
  // Two triangles of a quad and one vertex (index 4) no triangle uses.
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 9, 9, 9]);
  const indices = new Uint32Array([0, 1, 2, 0, 2, 3]);
  const wire = reorderForWire(positions, indices);
  assert.equal(wire.positions.length, 12);
  const triangles = (p: Float32Array, ix: Uint32Array) => {
    const out: string[] = [];
    for (let t = 0; t < ix.length; t += 3) {
      const corners = [0, 1, 2].map((k) =>
        [...p.subarray(ix[t + k] * 3, ix[t + k] * 3 + 3)].join(",")
      );
      // The same triangle whichever corner comes first (winding kept).
      const r = corners.indexOf([...corners].sort()[0]);
      out.push([0, 1, 2].map((k) => corners[(r + k) % 3]).join(" "));
    }
    return out.sort();
  };
  assert.deepEqual(triangles(wire.positions, wire.indices), triangles(positions, indices));
  // Its coded index buffer is the one the mesh travels with: it decodes to exactly these indices.
  await meshDecoderReady();
  const sent = encodeMesh(wire.positions, wire.indices, wire.codedIndices);
  assert.deepEqual(base64ToBytes(sent.indices), wire.codedIndices);
  assert.deepEqual(decodeMesh("q", sent).indices, wire.indices);
  assert.throws(() => reorderForWire(positions, new Uint32Array([0, 1, 7])), RangeError);
  assert.equal(reorderForWire(positions, new Uint32Array()).positions.length, 0);
});

/** Every example with a template, at its defaults and with numeric parameters at their maxima. */
async function exampleDags(): Promise<[string, Dag][]> {
  const out: [string, Dag][] = [];
  const root = new URL("../../examples/projects/", import.meta.url);
  for await (const entry of Deno.readDir(root)) {
    const dir = new URL(`${entry.name}/`, root);
    let template: Dag;
    try {
      template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
    } catch {
      continue; // python-mode: no template
    }
    const schema = validateParameterSchema(
      JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
    );
    const maxima: Record<string, unknown> = {};
    for (const p of schema.parameters) {
      if (p.kind === "Int" || p.kind === "Float") maxima[p.name] = p.maximum;
    }
    out.push([`${entry.name} defaults`, substitute(template, schema, {})]);
    out.push([`${entry.name} maxima`, substitute(template, schema, maxima)]);
  }
  return out;
}

Deno.test("kernel - mesh encoding: every example round-trips (exact counts and indices, coordinates within half a step)", async () => {
  await meshDecoderReady();
  const dags = await exampleDags();
  assert.ok(dags.length >= 10, "five template examples, twice");
  for (const [label, dag] of dags) {
    const { scene, exact } = await evaluateDagExact(dag);
    for (const [hash, encoded] of Object.entries(scene.meshes)) {
      const mesh = exact.get(hash)!;
      assert.equal(await meshHash(mesh.positions, mesh.indices), hash, `${label}: hash`);
      const decoded = decodeMesh(hash, encoded);
      assert.equal(decoded.vertexCount, mesh.positions.length / 3, `${label}: vertices`);
      assert.equal(decoded.triangleCount, mesh.indices.length / 3, `${label}: triangles`);
      assert.deepEqual(decoded.indices, new Uint32Array(mesh.indices), `${label}: indices`);
      for (let i = 0; i < mesh.positions.length; i++) {
        const k = i % 3;
        // The documented bound (half a step) plus the Float32 rounding of min + q · scale.
        const bound = encoded.scale[k] / 2 +
          (Math.abs(mesh.positions[i]) + Math.abs(encoded.min[k])) * 2 ** -23;
        const error = Math.abs(decoded.positions[i] - mesh.positions[i]);
        assert.ok(error <= bound, `${label}: coordinate ${i} off by ${error} > ${bound}`);
      }
    }
  }
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
