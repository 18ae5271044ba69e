import assert from "node:assert/strict";
import { encodeMesh } from "@/lib/kernel/mesh_encoding.ts";
import {
  decodeFloat32LE,
  decodeMesh,
  decodeUint32LE,
  HOST_IS_LITTLE_ENDIAN,
} from "@/lib/client/mesh_decode.ts";
import { decodeBase64 } from "@/lib/client/base64.ts";

/** Base64 of `values` written little-endian by hand, independent of the host's byte order. */
function le32(values: number[], kind: "f32" | "u32"): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) =>
    kind === "f32" ? view.setFloat32(i * 4, v, true) : view.setUint32(i * 4, v, true)
  );
  return btoa(String.fromCharCode(...new Uint8Array(view.buffer)));
}

const POSITIONS = [0, 0, 0, 1.5, -2.25, 3, 1e6, -0.1, 7];
const INDICES = [0, 1, 2, 2, 1, 0];

Deno.test("client - mesh decoding reads little-endian data on either host byte order", () => {
  for (const littleEndianHost of [true, false]) {
    const positions = decodeFloat32LE(le32(POSITIONS, "f32"), 9, { littleEndianHost });
    assert.deepEqual(
      [...positions],
      [...new Float32Array(POSITIONS)],
      `LE host: ${littleEndianHost}`,
    );
    const indices = decodeUint32LE(le32([1, 0xfffffffe, 65536], "u32"), 3, { littleEndianHost });
    assert.deepEqual([...indices], [1, 0xfffffffe, 65536]);
  }
  assert.equal(typeof HOST_IS_LITTLE_ENDIAN, "boolean");
  assert.deepEqual([...decodeFloat32LE("AACAPw==")], [1]);
});

Deno.test("client - mesh decoding round-trips the kernel's encoding", () => {
  const encoded = encodeMesh(new Float32Array(POSITIONS), new Uint32Array(INDICES));
  for (const littleEndianHost of [true, false]) {
    const mesh = decodeMesh("h", encoded, { littleEndianHost });
    assert.deepEqual([...mesh.positions], [...new Float32Array(POSITIONS)]);
    assert.deepEqual([...mesh.indices], INDICES);
    assert.equal(mesh.vertexCount, 3);
    assert.equal(mesh.triangleCount, 2);
    assert.equal(mesh.byteLength, 9 * 4 + 6 * 4);
  }
});

Deno.test("client - mesh decoding refuses meshes that do not match their counts", async (t) => {
  const good = {
    positions: le32(POSITIONS, "f32"),
    indices: le32(INDICES, "u32"),
    vertexCount: 3,
    triangleCount: 2,
  };
  const cases: [string, object, RegExp][] = [
    ["too few vertices", { vertexCount: 4 }, /positions: expected 12 values/],
    ["too many triangles", { triangleCount: 3 }, /indices: expected 9 values/],
    ["index beyond the vertices", { indices: le32([0, 1, 3, 0, 1, 2], "u32") }, /index 2 is 3/],
    ["not base64", { positions: "%%%" }, /not valid base64/],
    ["ragged bytes", { positions: btoa("abcde") }, /not a whole number/],
    ["negative count", { vertexCount: -1 }, /must be counts/],
  ];
  for (const [name, change, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => decodeMesh("h", { ...good, ...change }), (err: Error) => {
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
