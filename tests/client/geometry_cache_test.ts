import assert from "node:assert/strict";
import { GeometryCache } from "@/lib/client/geometry_cache.ts";
import type { DecodedMesh } from "@/lib/client/mesh_decode.ts";

function mesh(hash: string, vertices: number): DecodedMesh {
  const positions = new Float32Array(vertices * 3);
  const indices = new Uint32Array(3);
  return {
    hash,
    positions,
    indices,
    vertexCount: vertices,
    triangleCount: 1,
    byteLength: positions.byteLength + indices.byteLength,
  };
}

Deno.test("client - geometry cache evicts the least recently used meshes to stay within its bytes", () => {
  // Each mesh of 10 vertices is 120 + 12 = 132 bytes; three fit in 400.
  const cache = new GeometryCache({ maxBytes: 400 });
  for (const h of ["a", "b", "c"]) assert.equal(cache.set(h, mesh(h, 10)), true);
  assert.equal(cache.bytes, 396);
  assert.deepEqual(cache.keys(), ["c", "b", "a"], "most recently used first");
  assert.ok(cache.get("a"), "a use moves a to the front");
  assert.equal(cache.has("b"), true);
  cache.set("d", mesh("d", 10));
  assert.equal(cache.has("b"), false, "b was the least recently used");
  assert.deepEqual(cache.keys(), ["d", "a", "c"]);
  assert.equal(cache.size, 3);
  assert.equal(cache.bytes, 396);

  cache.set("big", mesh("big", 20)); // 252 bytes: two of the small ones must go
  assert.deepEqual(cache.keys(), ["big", "d"]);
  assert.equal(cache.bytes, 384);
});

Deno.test("client - geometry cache refuses a mesh larger than its bound and replaces on re-set", () => {
  const cache = new GeometryCache({ maxBytes: 100 });
  assert.equal(cache.set("huge", mesh("huge", 100)), false);
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
  cache.set("x", mesh("x", 2));
  cache.set("x", mesh("x", 5));
  assert.equal(cache.size, 1);
  assert.equal(cache.bytes, 5 * 12 + 12);
  assert.equal(cache.delete("x"), true);
  assert.equal(cache.delete("x"), false);
  assert.equal(cache.get("x"), undefined);
  cache.set("y", mesh("y", 1));
  cache.clear();
  assert.equal(cache.bytes, 0);
  assert.throws(() => new GeometryCache({ maxBytes: -1 }), TypeError);
});
