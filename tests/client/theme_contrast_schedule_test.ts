/**
 * A configurator checks its theme's contrast in the task after its mount, and after later scenes once,
 * when the page is idle, for a run of them (lib/client/theme_contrast_schedule.ts). Deno has no
 * `requestIdleCallback`: the fallback, a timer after the current task, stands in for it here.
 */
import assert from "node:assert/strict";
import { ThemeContrastSchedule } from "@/lib/client/theme_contrast_schedule.ts";

const root = { id: "configurator" } as unknown as HTMLElement;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 5));

Deno.test("theme contrast schedule - the mount is checked in the next task, a run of later scenes once after it", async () => {
  const checked: HTMLElement[] = [];
  const schedule = new ThemeContrastSchedule((r) => checked.push(r));
  schedule.scene(root);
  await Promise.resolve();
  assert.deepEqual(
    checked,
    [],
    "not in the mount's task: its microtasks (the first request) go first",
  );
  await nextTask();
  assert.deepEqual(checked, [root], "the next task checks");
  schedule.scene(root);
  schedule.scene(root);
  schedule.scene(root);
  assert.equal(checked.length, 1, "later scenes wait for an idle moment");
  await nextTask();
  assert.equal(checked.length, 2, "three scenes, one check");
  schedule.scene(root);
  await nextTask();
  assert.equal(checked.length, 3, "a scene after the check schedules another");
  schedule.dispose();
});

Deno.test("theme contrast schedule - a check still waiting is dropped with the configurator", async () => {
  let checks = 0;
  const schedule = new ThemeContrastSchedule(() => checks++);
  schedule.scene(root);
  await nextTask();
  schedule.scene(root);
  schedule.dispose();
  await nextTask();
  assert.equal(checks, 1, "only the mount's check ran");
});

Deno.test("theme contrast schedule - a configurator gone before its mount's check is not checked", async () => {
  let checks = 0;
  const schedule = new ThemeContrastSchedule(() => checks++);
  schedule.scene(root);
  schedule.scene(root);
  schedule.dispose();
  await nextTask();
  assert.equal(checks, 0);
});
