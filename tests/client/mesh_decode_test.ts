/**
 * Client mesh decoding: Uint16-quantized positions and zigzag-delta varint indices, the round
 * trip from the kernel's encoder (within the stated error bound; indices exact, also past
 * 65535; the empty mesh), and refusal of meshes that do not match their counts.
 */
import assert from "node:assert/strict";
import { encodeMesh, QUANT_MAX } from "@/lib/kernel/mesh_encoding.ts";
import type { EncodedMesh } from "@/lib/dag/scene.ts";
import {
  decodeIndexDeltas,
  decodeMesh,
  decodeQuantizedPositions,
} from "@/lib/client/mesh_decode.ts";
import { decodeBase64 } from "@/lib/client/base64.ts";

/** Base64 of bytes written by hand. */
const b64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));

/** Base64 of `values` as little-endian Uint16, written by hand. */
function le16(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 2));
  values.forEach((v, i) => view.setUint16(i * 2, v, true));
  return btoa(String.fromCharCode(...new Uint8Array(view.buffer)));
}

/** A deterministic pseudo-random stream in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Every decoded coordinate is within half a step of the original, plus the Float32 rounding of
 * the decoded value (half an ulp, ≤ |x|·2⁻²⁴).
 */
function assertWithinBound(original: Float32Array, mesh: EncodedMesh, decoded: Float32Array) {
  assert.equal(decoded.length, original.length);
  for (let i = 0; i < original.length; i++) {
    const k = i % 3;
    const extentStep = mesh.scale[k];
    const bound = extentStep / 2 + Math.abs(original[i]) * 2 ** -24 * 1.0001;
    const error = Math.abs(decoded[i] - original[i]);
    assert.ok(error <= bound, `coordinate ${i}: error ${error} > bound ${bound}`);
  }
}

Deno.test("client - mesh decoding reads Uint16 positions and applies min and scale per axis", () => {
  const positions = decodeQuantizedPositions(
    le16([0, 0, 0, QUANT_MAX, 1, 2, 0x8000, 0xffff, 0x0100]),
    { min: [-1, 10, 0.5], scale: [4 / QUANT_MAX, 0.25, 0] },
    9,
  );
  const expected = [-1, 10, 0.5, 3, 10.25, 0.5, -1 + 0x8000 * 4 / QUANT_MAX, 10 + 0xffff / 4, 0.5];
  assert.deepEqual([...positions], [...new Float32Array(expected)]);
  assert.throws(
    () => decodeQuantizedPositions(b64([1, 2, 3]), { min: [0, 0, 0], scale: [1, 1, 1] }),
    /Uint16/,
  );
});

Deno.test("client - mesh decoding reads zigzag-delta varints, up to the largest Uint32", () => {
  assert.deepEqual([...decodeIndexDeltas(b64([0, 2, 2, 1, 0x80, 0x01, 0x81, 0x01]))], [
    0,
    1,
    2,
    1,
    65,
    0,
  ]);
  const big = b64([0xfe, 0xff, 0xff, 0xff, 0x1f, 0xfd, 0xff, 0xff, 0xff, 0x1f]);
  assert.deepEqual([...decodeIndexDeltas(big, 2)], [0xffffffff, 0]);
  assert.deepEqual([...decodeIndexDeltas("")], []);
});

Deno.test("client - mesh decoding round-trips the kernel's encoding within half a step", async (t) => {
  await t.step("a random mesh: positions within the bound, indices exact", () => {
    const next = random(7);
    const vertexCount = 2000;
    const positions = new Float32Array(vertexCount * 3);
    const box = [[-123.4, 56.7], [0.001, 0.002], [1e4, 3e4]];
    for (let i = 0; i < positions.length; i++) {
      const [lo, hi] = box[i % 3];
      positions[i] = lo + next() * (hi - lo);
    }
    const indices = new Uint32Array(3 * 3000);
    for (let i = 0; i < indices.length; i++) indices[i] = Math.floor(next() * vertexCount);
    const encoded = encodeMesh(positions, indices);
    const mesh = decodeMesh("h", JSON.parse(JSON.stringify(encoded)));
    assertWithinBound(positions, encoded, mesh.positions);
    for (let k = 0; k < 3; k++) {
      const axis = positions.filter((_, i) => i % 3 === k);
      const [lo, hi] = [Math.min(...axis), Math.max(...axis)];
      assert.equal(encoded.min[k], lo);
      assert.equal(encoded.scale[k], (hi - lo) / QUANT_MAX);
    }
    assert.deepEqual(mesh.indices, indices);
    assert.equal(mesh.vertexCount, vertexCount);
    assert.equal(mesh.triangleCount, 3000);
    assert.equal(mesh.byteLength, positions.byteLength + indices.byteLength);
  });

  await t.step("the box's corners come back exactly; a flat axis is exact", () => {
    const positions = new Float32Array([0.1, 7, -3, 12.7, 7, 9.9, 5, 7, 0]);
    const encoded = encodeMesh(positions, new Uint32Array([0, 1, 2]));
    const mesh = decodeMesh("h", encoded);
    assertWithinBound(positions, encoded, mesh.positions);
    for (const i of [0, 2, 3, 5]) assert.equal(mesh.positions[i], positions[i], `corner ${i}`);
    for (const i of [1, 4, 7]) assert.equal(mesh.positions[i], 7, "flat axis");
  });

  await t.step("indices past 65535 and jumps both ways come back exactly", () => {
    const vertexCount = 70_000;
    const positions = new Float32Array(vertexCount * 3).map((_, i) => i * 0.5);
    const indices = new Uint32Array([69_999, 0, 65_536, 65_535, 65_537, 1, 69_998, 69_999, 0]);
    const encoded = encodeMesh(positions, indices);
    const mesh = decodeMesh("h", encoded);
    assert.deepEqual([...mesh.indices], [...indices]);
    assertWithinBound(positions, encoded, mesh.positions);
  });

  await t.step("an empty mesh", () => {
    const encoded = encodeMesh(new Float32Array(), new Uint32Array());
    const mesh = decodeMesh("h", encoded);
    assert.equal(mesh.positions.length, 0);
    assert.equal(mesh.indices.length, 0);
    assert.equal(mesh.vertexCount, 0);
    assert.equal(mesh.triangleCount, 0);
    assert.equal(mesh.byteLength, 0);
  });
});

Deno.test("client - mesh decoding refuses meshes that do not match their counts", async (t) => {
  const good: EncodedMesh = {
    positions: le16([0, 0, 0, 1, 2, 3, 4, 5, 6]),
    min: [0, 0, 0],
    scale: [1, 1, 1],
    indices: b64([0, 2, 2, 3, 2, 1]), // 0, 1, 2, 0, 1, 0
    vertexCount: 3,
    triangleCount: 2,
  };
  assert.deepEqual([...decodeMesh("h", good).indices], [0, 1, 2, 0, 1, 0]);
  const cases: [string, object, RegExp][] = [
    ["too few vertices", { vertexCount: 4 }, /positions: expected 12 values/],
    ["too many triangles", { triangleCount: 3 }, /indices: expected 9 values/],
    ["too few triangles", { triangleCount: 1 }, /more than the expected 3/],
    ["index beyond the vertices", { indices: b64([0, 2, 2, 3, 2, 4]) }, /index 5 is 3/],
    ["an index below 0", { indices: b64([0, 2, 2, 3, 2, 3]) }, /outside Uint32/],
    ["a varint cut short", { indices: b64([0, 2, 2, 3, 2, 0x81]) }, /cut short/],
    [
      "a varint over 5 bytes",
      { indices: b64([0, 2, 2, 3, 0x81, 0x80, 0x80, 0x80, 0x80, 0]) },
      /longer than 5/,
    ],
    ["not base64", { positions: "%%%" }, /not valid base64/],
    ["ragged bytes", { positions: b64([1, 2, 3]) }, /not a whole number/],
    ["negative count", { vertexCount: -1 }, /must be counts/],
    ["no min", { min: undefined }, /min and scale/],
    ["a short scale", { scale: [1, 1] }, /min and scale/],
    ["a negative scale", { scale: [1, -1, 1] }, /min and scale/],
    ["a non-finite min", { min: [0, Infinity, 0] }, /min and scale/],
  ];
  for (const [name, change, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => decodeMesh("h", { ...good, ...change } as EncodedMesh), (err: Error) => {
        assert.ok(err instanceof TypeError);
        assert.match(err.message, message);
        return true;
      });
    });
  }
});

Deno.test("client - base64 decoding agrees with and without the native decoder", () => {
  const bytes = crypto.getRandomValues(new Uint8Array(1000));
  const text = btoa(String.fromCharCode(...bytes));
  assert.deepEqual(decodeBase64(text, { native: false }), bytes);
  assert.deepEqual(decodeBase64(text), bytes);
  assert.deepEqual([...decodeBase64("-_8", { url: true, native: false })], [251, 255]);
  assert.deepEqual([...decodeBase64("-_8", { url: true })], [251, 255]);
});
