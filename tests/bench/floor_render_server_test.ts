import assert from "node:assert/strict";
import { startFloorRenderServer } from "../../bench/floor_render_server.ts";
import { gearValuesFor } from "../../bench/direct_gear.ts";
import { BENCH_REDIS_URL } from "../../bench/render_fixture.ts";
import { deleteRedisPrefix } from "../_helpers/redis.ts";

Deno.test("render floor - requests after a landed build count as late", async () => {
  const prefix = `test:floor:${crypto.randomUUID().slice(0, 8)}:`;
  const floor = await startFloorRenderServer({
    redisUrl: BENCH_REDIS_URL,
    counterKey: `${prefix}renders`,
  });
  try {
    const post = async (values: unknown) => {
      const res = await fetch(floor.url, { method: "POST", body: JSON.stringify({ values }) });
      assert.equal(res.status, 200, await res.clone().text());
      return JSON.parse(await res.text()) as { cache: string; scene: { triangles: number } };
    };
    const first = await post(gearValuesFor(1));
    assert.ok(first.cache === "miss" && first.scene.triangles > 0);
    assert.equal(floor.builds(), 1);
    assert.equal(floor.lateAnswers(), 0);
    await post(gearValuesFor(1));
    assert.equal(floor.builds(), 1);
    assert.equal(floor.lateAnswers(), 1);
    await post(gearValuesFor(2));
    assert.equal(floor.builds(), 2);
    assert.equal(floor.lateAnswers(), 1);
  } finally {
    await floor.close();
    await deleteRedisPrefix(BENCH_REDIS_URL, prefix);
  }
});
