/**
 * Instant color changes, as a shopper sees them in Chromium: a color pick is drawn on the model
 * while its render is still held on the way (the canvas's pixels change hue), the render's answer
 * then takes over with the same color; a geometry change waits for its render; and a render that
 * fails takes the previewed color back.
 */
import assert from "node:assert/strict";
import type { Page, Route } from "playwright-core";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels, openConfigurator, startShop, until } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };
const INNER = "cad-configurator .cad-configurator";
const RENDERS = "**/v1/kernels/*/render";

/** What the custom element exposes that this test reads. */
interface ElementApi {
  setParameters(values: Record<string, unknown>): void;
  view: { partColors: string[]; framesDrawn: number };
}

function setParameters(page: Page, values: Record<string, unknown>): Promise<void> {
  return page.evaluate(
    (v) => (document.querySelector("cad-configurator") as unknown as ElementApi).setParameters(v),
    values,
  );
}

function partColors(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (document.querySelector("cad-configurator") as unknown as ElementApi).view.partColors
  );
}

/** Waits until the view shows `color` on its first part, then one more frame (drawn). */
async function colorShown(page: Page, color: string): Promise<void> {
  await page.waitForFunction(
    (c) =>
      (document.querySelector("cad-configurator") as unknown as ElementApi).view.partColors[0] ===
        c,
    color,
    { timeout: 10_000 },
  );
  await page.evaluate(() =>
    new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  );
}

/** Holds render requests until `release()`; `seen` counts the ones that arrived. */
function holdRenders(page: Page) {
  let open = Promise.withResolvers<void>();
  const state = { seen: 0 };
  const passed: Promise<void>[] = [];
  const handler = (route: Route) => {
    state.seen++;
    const pass = open.promise.then(() => route.continue());
    passed.push(pass);
    return pass;
  };
  return {
    state,
    start() {
      state.seen = 0;
      return page.route(RENDERS, handler);
    },
    release: () => open.resolve(),
    /** Lets every held request go on, then stops holding. */
    async stop() {
      open.resolve();
      await Promise.all(passed.splice(0));
      await page.unroute(RENDERS, handler);
      open = Promise.withResolvers<void>();
    },
  };
}

Deno.test({
  name:
    "e2e - color preview: a color pick is drawn before its render answers, and undone if it fails",
  ...e2e,
  async fn(t) {
    const setup = await startShop({ project: "spur-gear" });
    const browser = await launchBrowser();
    try {
      const { page, errors } = await openConfigurator(browser, `${setup.shop}/?project=spur-gear`);
      assert.deepEqual(await partColors(page), ["#c9a227"]);
      const gold = await modelPixels(page);
      assert.ok(gold.red > gold.blue + 30, `gold: ${JSON.stringify(gold)}`);
      const hash = await page.locator(INNER).getAttribute("data-dag-hash");

      const held = holdRenders(page);
      await t.step("a color pick is drawn while its render is held", async () => {
        await held.start();
        await setParameters(page, { color: "#2e86ab" });
        await colorShown(page, "#2e86ab");
        // The request leaves once the preview's frame is drawn (RenderOptions.sendAfter).
        await until(() => held.state.seen > 0, "the render request");
        assert.equal(held.state.seen, 1, "the render was sent, once");
        assert.equal(await page.locator(INNER).getAttribute("data-render-status"), "rendering");
        assert.equal(await page.locator(INNER).getAttribute("data-dag-hash"), hash, "not answered");
        assert.equal(
          await page.locator(`${INNER} [data-param="color"] input[type="color"]`).inputValue(),
          "#2e86ab",
          "the form shows the pick with its model, not with the held answer",
        );
        const blue = await modelPixels(page);
        assert.ok(blue.blue > blue.red + 30, `blue: ${JSON.stringify(blue)}`);
        assert.ok(
          Math.abs(blue.drawn - gold.drawn) < gold.drawn * 0.02,
          "same model, same size",
        );
        await page.screenshot({ path: `${ARTIFACTS}color_preview_held.png` });
      });

      await t.step("the render's answer takes over with the same color", async () => {
        const rendered = page.evaluate(() =>
          new Promise<string>((resolve) =>
            document.querySelector("cad-configurator")!.addEventListener(
              "cad-rendered",
              (e) => resolve((e as CustomEvent).detail.result.values.color),
              { once: true },
            )
          )
        );
        const frames = () =>
          page.evaluate(() =>
            (document.querySelector("cad-configurator") as unknown as ElementApi).view.framesDrawn
          );
        const before = await frames();
        held.release();
        assert.equal(await rendered, "#2e86ab", "cad-rendered comes from the kernel's answer");
        await page.locator(`${INNER}[data-render-status="ready"]`).waitFor();
        await page.evaluate(() =>
          new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
        );
        assert.equal(await frames(), before, "the answer draws what is on screen: no new frame");
        assert.notEqual(await page.locator(INNER).getAttribute("data-dag-hash"), hash);
        assert.deepEqual(await partColors(page), ["#2e86ab"]);
        await held.stop();
      });

      await t.step("a geometry change waits for its render", async () => {
        await held.start();
        const before = await page.locator(INNER).getAttribute("data-dag-hash");
        await setParameters(page, { teeth: 30 });
        await page.evaluate(() =>
          new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
        );
        assert.equal(held.state.seen, 1);
        assert.equal(await page.locator(INNER).getAttribute("data-dag-hash"), before);
        // A color picked on top of a pending geometry change is not previewed either: the scene on
        // screen is not the geometry it would color.
        await setParameters(page, { color: "#222222" });
        await page.evaluate(() =>
          new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
        );
        assert.deepEqual(await partColors(page), ["#2e86ab"]);
        await held.stop();
        await page.waitForFunction(
          () =>
            (document.querySelector("cad-configurator") as unknown as ElementApi).view
              .partColors[0] === "#222222",
          null,
          { timeout: 30_000 },
        );
        await page.locator(`${INNER}[data-render-status="ready"]`).waitFor();
      });

      await t.step("a render that fails takes the previewed color back", async () => {
        let open = Promise.withResolvers<void>();
        const refuse = async (route: Route) => {
          await open.promise;
          await route.fulfill({
            status: 400,
            contentType: "application/problem+json",
            body: JSON.stringify({
              type: "about:blank",
              title: "Invalid DAG",
              status: 400,
              code: "invalid_dag",
              detail: "Refused by the test.",
            }),
          });
        };
        await page.route(RENDERS, refuse);
        await setParameters(page, { color: "#f2f2f2" });
        await colorShown(page, "#f2f2f2");
        open.resolve();
        await page.locator(`${INNER}[data-error-code="invalid_dag"]`).waitFor({ timeout: 10_000 });
        await colorShown(page, "#222222");
        await page.screenshot({ path: `${ARTIFACTS}color_preview_refused.png` });
        await page.unroute(RENDERS, refuse);
        open = Promise.withResolvers<void>();
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
