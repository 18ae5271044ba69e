/**
 * The solid cache's own rules (lib/kernel/solid_cache.ts), on real manifold-3d solids: bounded in
 * triangles and entries, least recently used out, admitting while it has room and then on a key's
 * second sighting, never evicting a solid the walk under way took
 * or kept, declining what does not fit, and deleting whatever it lets go (manifold-3d objects are
 * not garbage collected). solid_reuse_test.ts covers evaluation with it.
 */
import assert from "node:assert/strict";
import type { Manifold } from "manifold-3d";
import { createManifoldRuntime, type ManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import { SolidCache, type SubtreeRecord } from "@/lib/kernel/solid_cache.ts";

const NOTHING: SubtreeRecord = { computed: [], numbers: [] };

let runtime: ManifoldRuntime | undefined;
async function cube(): Promise<Manifold> {
  runtime ??= await createManifoldRuntime();
  return runtime.Manifold.cube([1, 1, 1]); // 12 triangles
}

/** Whether manifold-3d has deleted `m` (embind refuses any call on a deleted handle). */
function deleted(m: Manifold): boolean {
  try {
    m.numTri();
    return false;
  } catch {
    return true;
  }
}

Deno.test("solid cache - least recently used out, within its entries and triangles", async () => {
  const cache = new SolidCache({ maxTriangles: 1_000, maxEntries: 3 });
  const [a, b, c, d] = await Promise.all([cube(), cube(), cube(), cube()]);
  cache.beginWalk();
  assert.ok(cache.keep("a", a, NOTHING));
  assert.ok(cache.keep("b", b, NOTHING));
  assert.ok(cache.keep("c", c, NOTHING));
  cache.beginWalk();
  assert.equal(cache.take("a")?.m, a); // a is now the most recent
  assert.ok(cache.keep("d", d, NOTHING));
  assert.equal(cache.take("b"), undefined, "b, least recently used, went first");
  assert.ok(deleted(b), "and was deleted");
  assert.ok(!deleted(a) && !deleted(c) && !deleted(d));
  assert.deepEqual(cache.stats(), { hits: 1, kept: 4, evicted: 1, entries: 3, triangles: 36 });

  const byTriangles = new SolidCache({ maxTriangles: 48, maxEntries: 100 });
  const cubes = await Promise.all([cube(), cube(), cube(), cube(), cube()]);
  cubes.forEach((m, i) => {
    byTriangles.beginWalk();
    assert.ok(byTriangles.keep(`k${i}`, m, NOTHING));
  });
  assert.equal(byTriangles.stats().triangles, 48, "four cubes of 12 fill 48");
  assert.ok(deleted(cubes[0]) && !deleted(cubes[1]));
  byTriangles.clear();
  assert.ok(cubes.slice(1).every(deleted), "clear deletes everything held");
  assert.equal(byTriangles.stats().entries, 0);
});

Deno.test("solid cache - a solid the walk under way uses is never evicted", async () => {
  const cache = new SolidCache({ maxTriangles: 1_000, maxEntries: 2 });
  const [a, b, c] = await Promise.all([cube(), cube(), cube()]);
  cache.beginWalk();
  assert.ok(cache.keep("a", a, NOTHING));
  assert.ok(cache.keep("b", b, NOTHING));
  assert.ok(!cache.keep("c", c, NOTHING), "no room but the walk's own: declined");
  assert.ok(!deleted(a) && !deleted(b) && !deleted(c), "c stays the caller's to delete");
  cache.beginWalk();
  assert.ok(cache.take("a"));
  assert.ok(cache.keep("c", c, NOTHING), "b, not used by this walk, made room");
  assert.ok(deleted(b) && !deleted(a));
});

Deno.test("solid cache - declines a solid above its bound, or a key it holds", async () => {
  const [a, b] = await Promise.all([cube(), cube()]);
  const cache = new SolidCache({ maxTriangles: 12, maxEntries: 10 });
  assert.ok(cache.keep("a", a, NOTHING), "12 triangles fit a bound of 12");
  assert.ok(!cache.keep("a", b, NOTHING), "a key held is not replaced");
  assert.ok(!new SolidCache({ maxTriangles: 11, maxEntries: 10 }).keep("b", b, NOTHING));
  assert.ok(!new SolidCache({ maxTriangles: 0, maxEntries: 10 }).keep("b", b, NOTHING));
  assert.ok(!deleted(b), "a declined solid is left to its caller");
  b.delete();
  cache.clear();
});

Deno.test("solid cache - smaller limits evict at once", async () => {
  const cache = new SolidCache({ maxTriangles: 1_000, maxEntries: 10 });
  const cubes = await Promise.all([cube(), cube(), cube()]);
  cache.beginWalk();
  cubes.forEach((m, i) => assert.ok(cache.keep(`k${i}`, m, NOTHING)));
  cache.setLimits({ maxTriangles: 0, maxEntries: 10 });
  assert.ok(cubes.every(deleted));
  assert.equal(cache.stats().entries, 0);
});

Deno.test("solid cache - admits while it has room, then on a key's second sighting among the last 64", async () => {
  const cache = new SolidCache({ maxTriangles: 24, maxEntries: 10 });
  assert.ok(cache.admits("a", 12), "room: admitted on a first sighting");
  assert.ok(cache.keep("a", await cube(), NOTHING));
  assert.ok(cache.admits("b", 12));
  assert.ok(cache.keep("b", await cube(), NOTHING));
  assert.ok(!cache.admits("c", 12), "full: a first sighting would only displace another");
  assert.ok(cache.admits("c", 12), "a second sighting may");
  for (let i = 0; i < 64; i++) cache.admits(`k${i}`, 12);
  assert.ok(!cache.admits("c", 12), "forgotten after 64 other keys");
  cache.clear();
});
