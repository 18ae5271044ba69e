import assert from "node:assert/strict";
import { PreparedScene } from "@/lib/render/render_response_bytes.ts";
import type { Scene } from "@/lib/dag/scene.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);

function scene(): Scene {
  return {
    parts: [
      { name: "Grundplatte – Ø 12 😀", color: "#112233", mesh: A, instances: [[1, 0, 0, 0]] },
      { name: "bolt", color: "#445566", mesh: B, instances: [[1, 0, 0, 0], [2, 0, 0, 0]] },
    ],
    meshes: {
      [A]: {
        positions: "AAAA",
        indices: "BBBB",
        vertexCount: 3,
        triangleCount: 1,
        min: [0, 0, 0],
        scale: [0.5, 1e-7, 0],
      },
      [B]: {
        positions: "CCCC+/==",
        indices: "DDDD",
        vertexCount: 4,
        triangleCount: 2,
        min: [-1.25, 0, 3],
        scale: [1, 2, 3],
      },
    },
    bbox: { min: [0, 0, 0], max: [1, 2, 3] },
    triangles: 5,
    volume: 1.5,
  };
}

/** The response as the route built it before: `JSON.stringify` of the whole object. */
function expected(s: Scene, have: string[], cache: string, remaining: number | null): string {
  const held = new Set(have);
  const meshes: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [hash, mesh] of Object.entries(s.meshes)) {
    if (held.has(hash)) omitted.push(hash);
    else meshes[hash] = mesh;
  }
  const { meshes: _all, ...rest } = s;
  return JSON.stringify({
    kernel: "manifold",
    kernelVersion: "manifold-3.5.4+k1",
    project: "plaque-ß",
    version: 3,
    dagHash: "f".repeat(64),
    cache,
    budget: { remaining },
    scene: rest,
    meshes,
    omitted,
  });
}

Deno.test("response bytes - equal JSON.stringify of the response, with and without omissions", () => {
  const prepared = PreparedScene.fromScene(scene());
  const head = {
    kernel: "manifold",
    kernelVersion: "manifold-3.5.4+k1",
    project: "plaque-ß",
    version: 3,
    dagHash: "f".repeat(64),
  };
  const cases: [string[], "l1" | "l2" | "miss", number | null][] = [
    [[], "miss", 9],
    [[A], "l1", 0],
    [[B], "l2", null],
    [[A, B], "l1", 4],
    [["c".repeat(64), A, A], "l1", 2],
  ];
  for (const [have, cache, remaining] of cases) {
    const text = prepared.response({ ...head, cache, remaining }, have);
    assert.equal(
      text,
      expected(scene(), have, cache, remaining),
      `have ${have.map((h) => h[0]).join(",")}`,
    );
  }
  // The cached text is not changed by a response that cut meshes out.
  assert.deepEqual(prepared.toScene(), scene());
  assert.deepEqual(prepared.meshHashes, [A, B]);
});

Deno.test("response bytes - the L2 text gives the same prepared scene; size counts the text held", () => {
  const prepared = PreparedScene.fromScene(scene());
  const again = PreparedScene.fromText(prepared.text);
  assert.equal(again.text, prepared.text);
  assert.deepEqual(again.toScene(), scene());
  assert.deepEqual(again.meshHashes, [A, B]);
  assert.ok(prepared.size >= prepared.text.length);
  // Two bytes per character once any character is outside Latin-1 (the part name has "😀").
  assert.ok(prepared.size >= 2 * prepared.text.length);
  const empty: Scene = { ...scene(), parts: [], meshes: {} };
  const bare = PreparedScene.fromScene(empty);
  assert.deepEqual(PreparedScene.fromText(bare.text).toScene(), empty);
});
