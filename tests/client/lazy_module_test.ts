/**
 * `lazyModule` (lib/client/lazy_module.ts): one load for any number of callers, and a failed load
 * (a network error) is not kept, so the next call tries again.
 */
import assert from "node:assert/strict";
import { lazyModule } from "@/lib/client/lazy_module.ts";

Deno.test("lazy module - loads once for every caller, on the first call", async () => {
  let loads = 0;
  const load = lazyModule(() => Promise.resolve({ n: ++loads }));
  assert.equal(loads, 0, "nothing loads before the first call");
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(a, b);
  assert.equal(await load(), a);
  assert.equal(loads, 1);
});

Deno.test("lazy module - a failed load is tried again on the next call", async () => {
  let attempts = 0;
  const load = lazyModule(() => {
    attempts++;
    return attempts === 1 ? Promise.reject(new TypeError("network")) : Promise.resolve("ok");
  });
  const first = load();
  assert.equal(load(), first, "callers during the failing attempt share it");
  await assert.rejects(first, TypeError);
  assert.equal(await load(), "ok");
  assert.equal(await load(), "ok");
  assert.equal(attempts, 2);
});
