/**
 * Client mesh decoding with meshopt's decoder: the round trip from the kernel's encoder (within
 * the stated error bound; indices exact, also past 65535; the empty mesh), instance buffers, and
 * refusal — with a `TypeError` that names the mesh and what is wrong — of truncated or corrupted
 * buffers, counts that do not match, bad quantization and indices beyond the vertices.
 */
import assert from "node:assert/strict";
import { MeshoptEncoder } from "meshoptimizer/encoder";
import {
  encodeInstanceBytes,
  encodeMesh,
  meshEncoderReady,
  reorderForWire,
} from "@/lib/kernel/mesh_encoding.ts";
import type { EncodedMesh } from "@/lib/dag/scene.ts";
import {
  decodeInstanceBuffer,
  decodeMesh,
  decodeMeshBuffers,
  meshDecoderReady,
} from "@/lib/client/mesh_decode.ts";
import { decodeBase64 } from "@/lib/client/base64.ts";

await meshEncoderReady();
await meshDecoderReady();

/** A deterministic pseudo-random stream in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random triangle soup over `vertices` vertices, in the kernel's wire order. */
function soup(vertices: number, triangles: number, seed: number) {
  const next = random(seed);
  const positions = new Float32Array(vertices * 3).map(() => (next() - 0.3) * 1000);
  const indices = new Uint32Array(triangles * 3);
  for (let t = 0; t < triangles; t++) {
    // Three distinct corners (the index codec wants proper triangles).
    const a = Math.floor(next() * vertices);
    indices.set([a, (a + 1) % vertices, (a + 2) % vertices], t * 3);
  }
  return reorderForWire(positions, indices);
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

Deno.test("client - mesh decode: the kernel's meshes decode within half a step, indices exact", () => {
  for (const [vertices, triangles] of [[3, 1], [500, 400], [70_000, 70_000]]) {
    const { positions, indices } = soup(vertices, triangles, vertices);
    const encoded = encodeMesh(positions, indices);
    const mesh = decodeMesh("h", JSON.parse(JSON.stringify(encoded)));
    assert.equal(mesh.vertexCount, positions.length / 3);
    assert.equal(mesh.triangleCount, triangles);
    assert.deepEqual(mesh.indices, new Uint32Array(indices));
    assert.equal(mesh.byteLength, mesh.positions.byteLength + mesh.indices.byteLength);
    for (let i = 0; i < positions.length; i++) {
      const k = i % 3;
      const bound = encoded.scale[k] / 2 +
        (Math.abs(positions[i]) + Math.abs(encoded.min[k])) * 2 ** -23;
      assert.ok(Math.abs(mesh.positions[i] - positions[i]) <= bound, `coordinate ${i}`);
    }
  }
});

Deno.test("client - mesh decode: instance buffers round-trip exactly", () => {
  const values = [8, 8, 10, 24.125, -8, 1e-9, 0.1 + 0.2, 7, 1e6];
  assert.deepEqual(decodeInstanceBuffer(encodeInstanceBytes(values, 3), 3, 3), values);
  const matrix = [
    0.7071067811865476,
    0.7071067811865475,
    0,
    0,
    -1,
    0,
    0,
    0,
    0,
    0,
    1,
    0,
    5,
    6,
    7,
    1,
  ];
  assert.deepEqual(decodeInstanceBuffer(encodeInstanceBytes(matrix, 16), 1, 16), matrix);
  assert.throws(
    () => decodeInstanceBuffer(encodeInstanceBytes(values, 3).subarray(0, 10), 3, 3),
    (err: Error) => err instanceof TypeError && /instances do not decode/.test(err.message),
  );
});

Deno.test("client - mesh decode: broken meshes are refused with a clear TypeError", async (t) => {
  const { positions, indices } = soup(200, 150, 7);
  const good: EncodedMesh = encodeMesh(positions, indices);
  const vertexBytes = decodeBase64(good.vertices);
  const indexBytes = decodeBase64(good.indices);
  const corrupt = (bytes: Uint8Array, at: number) => {
    const copy = new Uint8Array(bytes);
    copy[at] ^= 0xff;
    return copy;
  };
  // Indices that name vertex 300 while the mesh claims fewer vertices.
  const far = MeshoptEncoder.encodeIndexBuffer(
    new Uint8Array(new Uint32Array([0, 1, 300]).buffer),
    3,
    4,
  );
  const cases: [string, Partial<EncodedMesh> | Record<string, unknown>, RegExp][] = [
    [
      "vertices cut short",
      { vertices: b64(vertexBytes.subarray(0, 40)) },
      /vertices do not decode/,
    ],
    ["vertices empty", { vertices: "" }, /vertices do not decode/],
    ["vertices header corrupted", { vertices: b64(corrupt(vertexBytes, 0)) }, /vertices do not/],
    ["indices cut short", { indices: b64(indexBytes.subarray(0, 20)) }, /indices do not decode/],
    ["indices header corrupted", { indices: b64(corrupt(indexBytes, 0)) }, /indices do not/],
    ["more vertices claimed", { vertexCount: good.vertexCount + 1 }, /vertices do not decode/],
    ["more triangles claimed", { triangleCount: good.triangleCount + 5 }, /indices do not/],
    [
      "an index beyond the vertices",
      { indices: b64(far), triangleCount: 1 },
      /is 300, beyond \d+ vertices/,
    ],
    ["not base64", { vertices: "%%%" }, /not valid base64/],
    ["vertices not a string", { vertices: 5 }, /base64 strings/],
    ["negative count", { vertexCount: -1 }, /must be counts/],
    ["fractional count", { triangleCount: 1.5 }, /must be counts/],
    ["huge count", { vertexCount: 2 ** 30 }, /must be counts/],
    ["min too short", { min: [0, 0] }, /min and scale/],
    ["scale negative", { scale: [1, -1, 1] }, /min and scale/],
    ["scale not finite", { scale: [1, Infinity, 1] }, /min and scale/],
  ];
  assert.equal(decodeMesh("h", good).triangleCount, 150, "the untouched mesh decodes");
  for (const [name, change, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => decodeMesh("h1", { ...good, ...change } as EncodedMesh), (err: Error) => {
        assert.ok(err instanceof TypeError, `${name}: ${err}`);
        assert.match(err.message, /^mesh h1: /);
        assert.match(err.message, message);
        return true;
      });
    });
  }
  await t.step("buffers given as bytes go through the same checks", () => {
    assert.equal(
      decodeMeshBuffers("h", good, vertexBytes, indexBytes).vertexCount,
      good.vertexCount,
    );
    assert.throws(
      () => decodeMeshBuffers("h", good, vertexBytes.subarray(1), indexBytes),
      TypeError,
    );
  });
});
