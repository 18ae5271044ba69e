import assert from "node:assert/strict";
import { signal } from "@preact/signals-core";
import {
  ISOMETRIC_DIRECTION,
  isometricFrame,
  renderSnapshot,
  settledResult,
  SnapshotError,
} from "../../lib/client/snapshot.ts";
import type { RenderState } from "../../lib/client/render_client.ts";
import type { BoundingBox } from "../../lib/dag/scene.ts";
import type { RenderResult } from "../../lib/client/render_result.ts";

/** Where a point lands in the frame: x, y in [-1, 1] across the image when inside it. */
function project(frame: ReturnType<typeof isometricFrame>, p: number[]): [number, number] {
  const d = ISOMETRIC_DIRECTION;
  const right = [-d[1], d[0], 0].map((x) => x / Math.hypot(d[0], d[1]));
  const up = [
    d[1] * right[2] - d[2] * right[1],
    d[2] * right[0] - d[0] * right[2],
    d[0] * right[1] - d[1] * right[0],
  ];
  const rel = p.map((x, i) => x - frame.target[i]);
  const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return [dot(rel, right) / frame.halfWidth, dot(rel, up) / frame.halfHeight];
}

Deno.test("snapshot - the isometric frame fits the bounding box with the documented margin", async (t) => {
  const boxes: BoundingBox[] = [
    { min: [0, 0, 0], max: [10, 10, 10] },
    { min: [-400, -100, 0], max: [400, 100, 1200] }, // a tall shelf
    { min: [-26, -26, 0], max: [26, 26, 14] }, // a flat gear
    { min: [5, 5, 5], max: [5, 5, 5] }, // a point: no division by zero
  ];
  for (const bbox of boxes) {
    for (const aspect of [1, 2, 0.5]) {
      await t.step(`${JSON.stringify(bbox)} at ${aspect}:1`, () => {
        const frame = isometricFrame(bbox, aspect, 0.06);
        assert.ok(Math.abs(frame.halfWidth / frame.halfHeight - aspect) < 1e-9);
        let maxX = 0;
        let maxY = 0;
        for (let c = 0; c < 8; c++) {
          const corner = [0, 1, 2].map((i) => (c >> i) & 1 ? bbox.max[i] : bbox.min[i]);
          const [x, y] = project(frame, corner);
          maxX = Math.max(maxX, Math.abs(x));
          maxY = Math.max(maxY, Math.abs(y));
          // In front of the camera, between its planes.
          const depth = Math.hypot(...corner.map((v, i) => v - frame.position[i]));
          assert.ok(depth > frame.near && depth < frame.far);
        }
        // Every corner inside the margin, and the box touches the margin on one axis.
        assert.ok(maxX <= 0.88 + 1e-9 && maxY <= 0.88 + 1e-9, `${maxX}, ${maxY}`);
        if (bbox.max[0] > bbox.min[0]) assert.ok(Math.abs(Math.max(maxX, maxY) - 0.88) < 1e-9);
      });
    }
  }
});

Deno.test("snapshot - bad options are refused with invalid_snapshot_options before drawing", async (t) => {
  const result = { parts: [], bbox: { min: [0, 0, 0], max: [1, 1, 1] } } as unknown as RenderResult;
  const cases: Array<[string, Record<string, unknown>]> = [
    ["zero width", { width: 0 }],
    ["fractional height", { height: 100.5 }],
    ["too large", { width: 4096 }],
    ["a string size", { width: "512" }],
    ["an unknown colour", { background: "chartreuse-ish" }],
    ["a colour three cannot read", { background: "oklch(0.7 0.1 200)" }],
  ];
  for (const [label, options] of cases) {
    await t.step(label, async () => {
      await assert.rejects(
        renderSnapshot(result, options),
        (e) => e instanceof SnapshotError && e.code === "invalid_snapshot_options",
      );
    });
  }
  await t.step("no parts", async () => {
    await assert.rejects(
      renderSnapshot(result, { background: "transparent" }),
      (e) => e instanceof SnapshotError && e.code === "no_scene",
    );
  });
});

Deno.test("snapshot - settledResult waits for the render under way", async () => {
  const first = { dagHash: "a" } as RenderResult;
  const second = { dagHash: "b" } as RenderResult;
  const state = signal<RenderState>({ status: "ready", result: first, budgetRemaining: null });
  assert.equal(await settledResult(state), first);
  state.value = { status: "rendering", result: first, budgetRemaining: null };
  const pending = settledResult(state);
  state.value = { status: "ready", result: second, budgetRemaining: null };
  assert.equal(await pending, second);
  const empty = signal<RenderState>({ status: "idle", result: null, budgetRemaining: undefined });
  await assert.rejects(
    settledResult(empty),
    (e) => e instanceof SnapshotError && e.code === "no_scene",
  );
});
