/**
 * The configurator as a shopper uses it, in Chromium: the camera refits when the model's size
 * changes a lot (and keeps a view the shopper chose), a lost WebGL context is restored and drawn
 * again, the form shows the value the design limited a parameter to and why, and on a phone the
 * model stays in view while the form scrolls.
 */
import assert from "node:assert/strict";
import type { Frame, Page } from "playwright-core";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels, openConfigurator, startShop } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

/** What the custom element exposes that these tests read. */
interface ElementApi {
  setParameters(values: Record<string, unknown>): void;
  view: { cameraDistance: number; userMoved: boolean; framesDrawn: number; contextLost: boolean };
}

const INNER = "cad-configurator .cad-configurator";

/** Sets parameters through the element and waits for the new scene to be drawn. */
async function setAndWait(page: Page, values: Record<string, unknown>): Promise<void> {
  const before = await page.locator(INNER).getAttribute("data-dag-hash");
  await page.evaluate(
    (v) => (document.querySelector("cad-configurator") as unknown as ElementApi).setParameters(v),
    values,
  );
  await page.waitForFunction(
    (prev) => {
      const c = document.querySelector("cad-configurator")!.shadowRoot!
        .querySelector(".cad-configurator")!;
      return c.getAttribute("data-dag-hash") !== prev &&
        c.getAttribute("data-render-status") === "ready";
    },
    before,
    { timeout: 30_000 },
  );
  // The scene is shown in the effect after the render; one frame later it is drawn.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
}

function viewState(page: Page) {
  return page.evaluate(() => {
    const v = (document.querySelector("cad-configurator") as unknown as ElementApi).view;
    return {
      distance: v.cameraDistance,
      userMoved: v.userMoved,
      frames: v.framesDrawn,
      lost: v.contextLost,
    };
  });
}

Deno.test({
  name: "e2e - viewer: refit on a big change, the shopper's view kept, Fit, context loss restored",
  ...e2e,
  async fn(t) {
    const setup = await startShop({ project: "spur-gear" });
    const browser = await launchBrowser();
    try {
      const { page, errors } = await openConfigurator(browser, `${setup.shop}/?project=spur-gear`);
      const first = await viewState(page);

      await t.step("80 teeth at module 4 (52 → 328 mm): the camera backs off", async () => {
        await setAndWait(page, { teeth: 80, module: 4 });
        const big = await viewState(page);
        assert.ok(
          big.distance > first.distance * 4,
          `distance ${first.distance} → ${big.distance}`,
        );
        const { drawn, total } = await modelPixels(page);
        // The whole gear in view, not one face filling it.
        assert.ok(drawn > total * 0.05 && drawn < total * 0.8, `${drawn} of ${total} pixels`);
        await page.screenshot({ path: `${ARTIFACTS}viewer_refit_big.png` });
      });

      await t.step("after the shopper zooms, a big change keeps their view", async () => {
        const canvas = page.locator("cad-configurator canvas");
        const box = (await canvas.boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, -300);
        await page.waitForFunction(() =>
          (document.querySelector("cad-configurator") as unknown as ElementApi).view.userMoved
        );
        const chosen = await viewState(page);
        await setAndWait(page, { teeth: 24, module: 2 });
        const kept = await viewState(page);
        assert.equal(kept.distance, chosen.distance);
        assert.equal(kept.userMoved, true);

        await page.locator("cad-configurator .cad-viewer__fit").click();
        await page.waitForFunction(() =>
          !(document.querySelector("cad-configurator") as unknown as ElementApi).view.userMoved
        );
        const fitted = await viewState(page);
        assert.ok(
          fitted.distance < kept.distance / 3,
          `Fit: ${kept.distance} → ${fitted.distance}`,
        );
        assert.ok(Math.abs(fitted.distance - first.distance) < first.distance * 0.01);
      });

      await t.step(
        "WEBGL_lose_context: a quiet notice, then the scene is drawn again",
        async () => {
          const hasExtension = await page.evaluate(() => {
            const canvas = document.querySelector("cad-configurator")!.shadowRoot!
              .querySelector("canvas")!;
            const gl = canvas.getContext("webgl2")!;
            const ext = gl.getExtension("WEBGL_lose_context");
            (globalThis as unknown as { loseExt: unknown }).loseExt = ext;
            ext?.loseContext();
            return ext !== null;
          });
          assert.ok(hasExtension, "WEBGL_lose_context is available");
          const notice = page.locator(
            "cad-configurator .cad-viewer[data-context=lost] [role=status]",
          );
          await notice.waitFor({ timeout: 60_000 });
          assert.match((await notice.textContent()) ?? "", /Restoring the 3D view/);
          const lost = await viewState(page);
          assert.equal(lost.lost, true);
          await page.screenshot({ path: `${ARTIFACTS}viewer_context_lost.png` });

          await page.evaluate(() =>
            (globalThis as unknown as { loseExt: { restoreContext(): void } }).loseExt
              .restoreContext()
          );
          await page.locator("cad-configurator .cad-viewer[data-context=ok]").waitFor({
            state: "attached",
            timeout: 60_000,
          });
          assert.equal(await notice.count(), 0, "the notice is gone");
          const restored = await viewState(page);
          assert.equal(restored.lost, false);
          assert.ok(restored.frames > lost.frames, "a frame was drawn after the restore");
          const { drawn, total } = await modelPixels(page);
          assert.ok(drawn > total * 0.02, `the restored frame shows the model (${drawn})`);
          // And it keeps drawing: a new scene after the restore.
          await setAndWait(page, { teeth: 30 });
          assert.ok((await viewState(page)).frames > restored.frames);
          assert.ok((await modelPixels(page)).drawn > total * 0.02);
          await page.screenshot({ path: `${ARTIFACTS}viewer_context_restored.png` });
        },
      );

      await t.step("a hub the gear cannot hold: the form shows 43 mm and why", async () => {
        await setAndWait(page, { teeth: 24, hubDiameter: 60 });
        const field = page.locator('cad-configurator [data-param="hubDiameter"]');
        const note = field.locator("[data-effective-note]");
        await note.waitFor();
        // 24 teeth of module 2: root radius 24 − 1.25 · 2 = 21.5, so at most 43 mm across.
        assert.equal(
          (await note.textContent())?.trim(),
          "43 mm (limited by Teeth and Module: max 43 mm)",
        );
        assert.equal(await field.locator("input[type=number]").inputValue(), "60");
        assert.equal((await field.locator("output").textContent())?.trim(), "43 mm");
        const live = page.locator("cad-configurator [data-effective-announcement]");
        assert.equal(await live.getAttribute("aria-live"), "polite");
        assert.match((await live.textContent()) ?? "", /Hub diameter: the model uses 43 mm/);
        await field.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${ARTIFACTS}form_effective_value.png` });

        // Back within the bound: the note goes away.
        await setAndWait(page, { hubDiameter: 30 });
        assert.equal(await note.count(), 0);
        assert.equal((await field.locator("output").textContent())?.trim(), "30 mm");
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

/** The rectangle of `selector` inside `target`, in its viewport's coordinates. */
function rectOf(target: Page | Frame, selector: string) {
  return target.evaluate((sel) => {
    const host = document.querySelector("cad-configurator");
    const root: ParentNode = host?.shadowRoot ?? document;
    const r = root.querySelector(sel)!.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height, vh: innerHeight };
  }, selector);
}

Deno.test({
  name: "e2e - layout: on a phone the model stays in view while the form scrolls",
  ...e2e,
  async fn(t) {
    const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0">
<p style="padding:12px;margin:0">A partner page whose element takes its natural height.</p>
<cad-configurator key-id="{{KEY_ID}}" project="spur-gear" hub-url="{{HUB_URL}}"></cad-configurator>
<script type="module" src="{{HUB_URL}}/sdk/v1/embed.js"></script></body></html>`;
    const setup = await startShop({ project: "spur-gear", extraPages: { "/auto.html": PAGE } });
    const browser = await launchBrowser();
    try {
      await t.step("element with an automatic height: the viewer sticks to the top", async () => {
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
        await page.goto(`${setup.shop}/auto.html`);
        await page.locator(`${INNER}[data-render-status="ready"]`).waitFor({ timeout: 60_000 });
        const last = page.locator('cad-configurator [data-param="color"]');
        await last.scrollIntoViewIfNeeded();
        await page.evaluate(() => scrollBy(0, 200));
        const stage = await rectOf(page, ".cad-stage");
        assert.ok(await page.evaluate(() => scrollY > 300), "the page scrolled");
        assert.ok(stage.top >= 0 && stage.top < 2, `the viewer is at the top (${stage.top})`);
        assert.ok(stage.height >= 200 && stage.height <= 844 / 2, `bounded (${stage.height})`);
        const color = await rectOf(page, '[data-param="color"]');
        assert.ok(color.top >= stage.bottom - 1, "the form scrolls below, not under, the viewer");
        await page.screenshot({ path: `${ARTIFACTS}layout_phone_auto_height.png` });
        await page.close();
      });

      await t.step("hosted configurator in the storefront's iframe on a phone", async () => {
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
        await page.goto(`${setup.shop}/iframe.html`);
        const frame = page.frameLocator("#frame");
        await frame.locator('.cad-configurator[data-render-status="ready"]').waitFor({
          timeout: 60_000,
        });
        const inner = page.frames().find((f) => f.url().includes("/configurator/"))!;
        await frame.locator('[data-param="color"]').scrollIntoViewIfNeeded();
        const stage = await rectOf(inner, ".cad-stage");
        const color = await rectOf(inner, '[data-param="color"]');
        assert.ok(stage.top >= 0 && stage.bottom <= stage.vh, "the viewer is in the frame's view");
        assert.ok(stage.height >= 180, `the viewer keeps its height (${stage.height})`);
        assert.ok(color.top >= stage.bottom - 1 && color.bottom <= stage.vh + 1);
        await page.screenshot({ path: `${ARTIFACTS}layout_phone_iframe.png` });
        await page.close();
      });

      await t.step(
        "the iframe on a 1024 px desktop: side by side, more than two sliders",
        async () => {
          const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
          await page.goto(`${setup.shop}/iframe.html`);
          const frame = page.frameLocator("#frame");
          await frame.locator('.cad-configurator[data-render-status="ready"]').waitFor({
            timeout: 60_000,
          });
          const inner = page.frames().find((f) => f.url().includes("/configurator/"))!;
          const visible = await inner.evaluate(() => {
            const panel = document.querySelector(".cad-panel")!.getBoundingClientRect();
            const stage = document.querySelector(".cad-stage")!.getBoundingClientRect();
            const sliders = [...document.querySelectorAll("input[type=range]")].filter((s) => {
              const r = s.getBoundingClientRect();
              return r.top >= panel.top && r.bottom <= panel.bottom;
            });
            return { sliders: sliders.length, sideBySide: stage.right <= panel.left + 1 };
          });
          assert.ok(visible.sideBySide, "viewer and form side by side");
          assert.ok(visible.sliders > 2, `${visible.sliders} sliders in view`);
          await page.screenshot({ path: `${ARTIFACTS}layout_desktop_iframe_1024.png` });
          await page.close();
        },
      );
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
