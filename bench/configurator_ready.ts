/**
 * Waits until a page's `<cad-configurator>` has answered its first render and its view has drawn
 * it. The render status turns "ready" when the answer is decoded; the view (and its canvas) is
 * made lazily, once three.js has loaded (lib/client/scene_view_loader.ts), and may come later on a
 * slow machine, so the browser benches wait for the view's first-model mark too before they read
 * the canvas or time a change.
 */
import type { Page } from "playwright-core";
import { FIRST_MODEL_MARKS } from "../lib/client/scene_view.ts";

/** Resolves when the page's configurator is ready and its first model is drawn (60 s at most). */
export async function configuratorDrawn(page: Page): Promise<void> {
  await page.locator('cad-configurator .cad-configurator[data-render-status="ready"]')
    .waitFor({ timeout: 60_000 });
  await page.waitForFunction(
    (name) => performance.getEntriesByName(name).length > 0,
    FIRST_MODEL_MARKS.model,
    { timeout: 60_000, polling: 50 },
  );
}
