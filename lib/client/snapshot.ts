/**
 * The cart snapshot: a PNG of a rendered configuration from a fixed camera, for a cart line, an
 * order confirmation or a quote (docs/embedding.md, "Cart snapshot").
 *
 * - **Off the shopper's view.** It draws with a WebGL renderer of its own on a canvas that is never
 *   on the page, and frees it (context included) before resolving: the visible view's camera,
 *   size and frame are untouched, whatever the shopper did to them.
 * - **Camera preset `isometric`.** An orthographic camera looking at the bounding box's centre
 *   from the direction (1, −1, 1) (front-right, above; Z up as in the kernel), so the three
 *   visible faces of a box are equally foreshortened. The view is fitted to the eight corners of
 *   the bounding box with a margin of 6 % of the image on every side, so a 512 × 512 snapshot of
 *   any part fills it the same way and sizes compare between configurations.
 * - **Background** white (`#ffffff`) by default; any CSS colour, or `"transparent"` for a PNG with
 *   an alpha channel.
 * - **Look.** The view's own lighting, materials and tone mapping (`SCENE_LOOK`, Khronos PBR
 *   Neutral, sRGB), so the most-lit face shows the part's colour as on screen. On a software
 *   rasterizer the view's own light is its stand-in hemisphere (`SCENE_STAND_IN`,
 *   `software_gl.ts`): so is the snapshot's, instead of an environment map that would hold the page
 *   for seconds when the shopper adds to the cart.
 * - **Size** 512 × 512 by default, each side 16–2048 pixels, device pixel ratio 1.
 * - **Which scene.** `settledResult` waits for the renders under way and gives the last good
 *   result, so a snapshot taken right after a change shows the change (what the shopper sees).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { ReadonlySignal } from "@preact/signals-core";
import type { RenderState } from "./render_client.ts";
import type { RenderResult } from "./render_result.ts";
import { lazyModule } from "./lazy_module.ts";
import { SnapshotError } from "./snapshot_error.ts";
import { ISOMETRIC_MARGIN } from "./snapshot_frame.ts";

export { blobToDataUrl } from "./blob_data_url.ts";

/** The drawing, three.js with it, loaded on the first snapshot. */
const loadDrawing = lazyModule(() => import("./snapshot_draw.ts"));

/** What a snapshot looks like; every member optional. */
export interface SnapshotOptions {
  /** Width in pixels (16–2048, default 512). */
  width?: number;
  /** Height in pixels (16–2048, default 512). */
  height?: number;
  /** A CSS colour, or `"transparent"` (default `#ffffff`). */
  background?: string;
}

/** The documented defaults of a snapshot. */
export const SNAPSHOT_DEFAULTS = {
  width: 512,
  height: 512,
  background: "#ffffff",
  camera: "isometric",
  /** Margin around the fitted bounding box, as a fraction of the image on each side. */
  margin: ISOMETRIC_MARGIN,
} as const;

/** Smallest and largest side of a snapshot, in pixels. */
export const SNAPSHOT_SIZE_LIMITS = { min: 16, max: 2048 } as const;

export { SnapshotError, type SnapshotErrorCode } from "./snapshot_error.ts";
export { ISOMETRIC_DIRECTION, isometricFrame, type SnapshotFrame } from "./snapshot_frame.ts";

/**
 * A PNG of `result` from the isometric preset, drawn off screen (the visible view is untouched).
 * Rejects with `SnapshotError`. The drawing, and three.js with it, loads on the first call
 * (`snapshot_draw.ts`): a page that never takes a snapshot does not wait for it.
 *
 * @example
 * ```ts
 * const png = await renderSnapshot(result, { width: 512, height: 512 });
 * cartImage.src = URL.createObjectURL(png);
 * ```
 */
export async function renderSnapshot(
  result: RenderResult,
  options: SnapshotOptions = {},
): Promise<Blob> {
  const width = side(options.width ?? SNAPSHOT_DEFAULTS.width, "width");
  const height = side(options.height ?? SNAPSHOT_DEFAULTS.height, "height");
  const background = options.background ?? SNAPSHOT_DEFAULTS.background;
  const { drawSnapshot } = await loadDrawing().catch((err) => {
    throw new SnapshotError(
      "load_failed",
      `the snapshot's drawing code could not be loaded; try again (${
        err instanceof Error ? err.message : err
      })`,
    );
  });
  return await drawSnapshot(result, { width, height, background });
}

/**
 * The scene the shopper sees once the renders under way have settled (the last good result);
 * rejects with `SnapshotError` `no_scene` when nothing was drawn.
 *
 * @example
 * ```ts
 * const png = await renderSnapshot(await settledResult(renderer.state));
 * ```
 */
export function settledResult(state: ReadonlySignal<RenderState>): Promise<RenderResult> {
  return new Promise((resolve, reject) => {
    // `subscribe` calls back at once, before it returns the function that stops it.
    const stop: { done: boolean; unsubscribe?: () => void } = { done: false };
    stop.unsubscribe = state.subscribe((s) => {
      if (stop.done || s.status === "rendering") return;
      stop.done = true;
      stop.unsubscribe?.();
      if (s.result) resolve(s.result);
      else {
        reject(
          new SnapshotError("no_scene", "there is no rendered scene to take a snapshot of yet"),
        );
      }
    });
    if (stop.done) stop.unsubscribe();
  });
}

function side(value: unknown, name: string): number {
  if (
    typeof value !== "number" || !Number.isInteger(value) ||
    value < SNAPSHOT_SIZE_LIMITS.min || value > SNAPSHOT_SIZE_LIMITS.max
  ) {
    throw new SnapshotError(
      "invalid_snapshot_options",
      `${name} is a whole number of pixels from ${SNAPSHOT_SIZE_LIMITS.min} to ${SNAPSHOT_SIZE_LIMITS.max}, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return value;
}
