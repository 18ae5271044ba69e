/** The model in words and the view's live region (model_description.ts, render_announcer.ts). */
import assert from "node:assert/strict";
import {
  countText,
  describeModel,
  partsText,
  renderedAnnouncement,
  sizeText,
  trianglesText,
} from "@/lib/client/model_description.ts";
import { RenderAnnouncer } from "@/lib/client/render_announcer.ts";
import type { RenderResult } from "@/lib/client/render_result.ts";
import { viewKeyAction } from "@/lib/client/view_keys.ts";

const I = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function scene(bbox: RenderResult["bbox"], parts: Array<[string, number]>): RenderResult {
  return {
    bbox,
    triangles: 12_345,
    parts: parts.map(([name, n]) => ({ name, instances: Array(n).fill(I) })),
  } as unknown as RenderResult;
}

const gear = scene({ min: [-26, -26, 0], max: [26, 26, 14] }, [["gear", 1]]);
const shelf = scene({ min: [0, 0, 0], max: [40, 150.25, 150] }, [["bracket", 1], ["screw", 4]]);

Deno.test('model description - counts are grouped as toLocaleString("en") groups them, without ICU', () => {
  const samples = [0, 7, 42, 999, 1000, 1476, 12_345, 99_999, 100_000, 999_999, 1_000_000];
  for (let n = 1; n < 1e15; n = n * 7 + 3) samples.push(n);
  for (const n of samples) {
    assert.equal(countText(n), n.toLocaleString("en"), String(n));
    if (n > 0) assert.equal(countText(-n), (-n).toLocaleString("en"), String(-n));
  }
  assert.equal(trianglesText({ triangles: 4320 }), "4,320 triangles");
});

Deno.test("model description - size, parts with instance counts, triangles", () => {
  assert.equal(sizeText(gear), "52 × 52 × 14 mm");
  assert.equal(sizeText(shelf), "40 × 150.3 × 150 mm");
  assert.equal(partsText(shelf), "2 parts: bracket, screw (4 instances)");
  assert.equal(
    describeModel(gear, "Spur gear"),
    "Spur gear. 52 × 52 × 14 mm (width × depth × height). 1 part: gear. 12,345 triangles.",
  );
  assert.equal(renderedAnnouncement(shelf), "Model updated: 40 × 150.3 × 150 mm, 2 parts");
});

/** An announcer (settle 20 ms, "Updating" after 40 ms) that has said the gear's first model. */
async function announcedGear() {
  const said: string[] = [];
  const a = new RenderAnnouncer((t) => said.push(t), 20, 40);
  a.update({ loading: true, result: null, error: false });
  a.update({ loading: false, result: gear, error: false });
  await new Promise((r) => setTimeout(r, 60));
  return { said, a };
}

Deno.test("live region - fast renders: no 'Updating', 'updated' once they settle", async () => {
  const { said, a } = await announcedGear();
  // A slider dragged: three renders in a row, each superseding the last before it settles.
  for (const r of [shelf, gear, shelf]) {
    a.update({ loading: true, result: r, error: false });
    a.update({ loading: false, result: r, error: false });
  }
  await new Promise((r) => setTimeout(r, 60));
  a.update({ loading: false, result: shelf, error: true });
  a.dispose();
  assert.deepEqual(said, [
    "Loading model…",
    "Model updated: 52 × 52 × 14 mm, 1 part",
    "Model updated: 40 × 150.3 × 150 mm, 2 parts",
    "",
  ]);
});

Deno.test("live region - 'Updating' once an update has run the delay, and once while it runs", async () => {
  const { said, a } = await announcedGear();
  a.update({ loading: true, result: gear, error: false });
  await new Promise((r) => setTimeout(r, 60));
  // Renders go on (a slider dragged slowly): the same words are not said again.
  a.update({ loading: false, result: gear, error: false });
  a.update({ loading: true, result: gear, error: false });
  await new Promise((r) => setTimeout(r, 60));
  a.update({ loading: false, result: shelf, error: false });
  await new Promise((r) => setTimeout(r, 60));
  a.dispose();
  assert.deepEqual(said, [
    "Loading model…",
    "Model updated: 52 × 52 × 14 mm, 1 part",
    "Updating model…",
    "Model updated: 40 × 150.3 × 150 mm, 2 parts",
  ]);
});

Deno.test("live region - a new model with the same words is said again", async () => {
  const { said, a } = await announcedGear();
  // A fast update whose model has the gear's size and parts (a switch that changes neither).
  a.update({ loading: true, result: gear, error: false });
  a.update({ loading: false, result: { ...gear }, error: false });
  await new Promise((r) => setTimeout(r, 200));
  a.dispose();
  assert.deepEqual(said, [
    "Loading model…",
    "Model updated: 52 × 52 × 14 mm, 1 part",
    "",
    "Model updated: 52 × 52 × 14 mm, 1 part",
  ]);
});

Deno.test("view keys - arrows orbit, + − PageUp PageDown zoom, Home resets, others pass", () => {
  assert.equal(viewKeyAction("ArrowLeft")?.type, "orbit");
  assert.equal(viewKeyAction("ArrowUp")?.type, "orbit");
  const zin = viewKeyAction("PageUp");
  const zout = viewKeyAction("-");
  assert.ok(zin?.type === "zoom" && zin.factor < 1);
  assert.ok(zout?.type === "zoom" && zout.factor > 1);
  assert.equal(viewKeyAction("+")?.type, "zoom");
  assert.equal(viewKeyAction("Home")?.type, "reset");
  assert.equal(viewKeyAction("Tab"), null);
  assert.equal(viewKeyAction(" "), null);
});
