import assert from "node:assert/strict";
import { options } from "preact";
import { effectsInTasks, runEffectsInTasks } from "@/lib/web/effect_scheduling.ts";

Deno.test("effect scheduling - effects flush in a later task, without asking for a frame", async () => {
  const g = globalThis as { requestAnimationFrame?: (cb: () => void) => number };
  const saved = g.requestAnimationFrame;
  let frames = 0;
  g.requestAnimationFrame = () => ++frames;
  try {
    const order: string[] = [];
    effectsInTasks(() => order.push("flush"));
    order.push("after the call");
    await Promise.resolve();
    assert.deepEqual(order, ["after the call"], "not in a microtask of the commit");
    await new Promise((r) => setTimeout(r, 0));
    assert.deepEqual(order, ["after the call", "flush"]);
    assert.equal(frames, 0);
  } finally {
    g.requestAnimationFrame = saved;
  }
});

Deno.test("effect scheduling - runEffectsInTasks installs it as Preact's effect scheduler", () => {
  const saved = options.requestAnimationFrame;
  try {
    runEffectsInTasks();
    runEffectsInTasks();
    assert.equal(options.requestAnimationFrame, effectsInTasks);
  } finally {
    options.requestAnimationFrame = saved;
  }
});
