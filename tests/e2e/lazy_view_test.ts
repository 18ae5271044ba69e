/**
 * three.js loads beside the configurator, not before it (lib/client/scene_view_loader.ts,
 * lib/client/snapshot.ts): in Chromium on a partner origin, with the loads of the lazy chunks
 * failed or held by the test:
 * - a view whose code cannot load says so (role=alert) and the form and renders go on;
 * - a snapshot whose drawing cannot load rejects with `load_failed`, and the next one, with the
 *   network back, is a PNG;
 * - an element removed while three.js is on its way makes no WebGL context when it arrives;
 * - the stable `embed.js` asks for three.js before the view's own chunk has arrived.
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./browser.ts";
import { dagHashChange, modelPixels, startShop, until } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

/** Counts the WebGL contexts the page makes. */
const COUNT_CONTEXTS = `(() => {
  globalThis.__contexts = 0;
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (...args) {
    const context = getContext.apply(this, args);
    if (context && String(args[0]).startsWith("webgl")) globalThis.__contexts++;
    return context;
  };
})();`;

const INNER = "cad-configurator .cad-configurator";

Deno.test({
  name: "e2e - lazy view: failed loads are reported and retried, an early unmount makes no view",
  ...e2e,
  async fn(t) {
    const setup = await startShop();
    const browser = await launchBrowser();
    try {
      await t.step(
        "the view's code cannot load: an alert, and the form still renders",
        async () => {
          const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.route(/\/build\/scene_view-[^/]+\.js$/, (route) => route.abort());
          await page.goto(`${setup.shop}/`);
          await page.locator(`${INNER}[data-render-status="ready"]`).waitFor({ timeout: 60_000 });
          const alert = page.locator('cad-configurator .cad-viewer__error[role="alert"]');
          await alert.waitFor({ timeout: 30_000 });
          assert.match(await alert.innerText(), /The 3D view could not start/);
          assert.equal(
            await page.locator("cad-configurator .cad-viewer").getAttribute("data-state"),
            "error",
          );
          assert.equal(await page.locator("cad-configurator canvas").count(), 0);
          // The form works without the view: a change renders.
          const hash = await page.locator(INNER).getAttribute("data-dag-hash");
          const slider = page.locator('cad-configurator [data-param="width"] input[type=range]');
          await slider.focus();
          await slider.press("ArrowRight");
          await dagHashChange(page, hash);
          assert.deepEqual(errors, []);
          await page.close();
        },
      );

      await t.step("a snapshot whose drawing cannot load rejects, the next one works", async () => {
        const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        const drawing = /\/build\/snapshot_draw-[^/]+\.js$/;
        await page.route(drawing, (route) => route.abort());
        await page.goto(`${setup.shop}/`);
        await page.locator(`${INNER}[data-render-status="ready"]`).waitFor({ timeout: 60_000 });
        const take = () =>
          page.evaluate(async () => {
            const el = document.querySelector("cad-configurator") as unknown as {
              snapshot(): Promise<Blob>;
            };
            try {
              const blob = await el.snapshot();
              const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
              return { type: blob.type, size: blob.size, head: [...head] };
            } catch (err) {
              return { code: (err as { code?: string }).code, message: String(err) };
            }
          });
        const failed = await take();
        assert.equal(failed.code, "load_failed", JSON.stringify(failed));
        await page.unroute(drawing);
        const png = await take();
        assert.equal(png.type, "image/png", JSON.stringify(png));
        assert.deepEqual(png.head, [0x89, 0x50, 0x4e, 0x47]);
        assert.ok((png.size ?? 0) > 1000);
        // The shopper's view was drawn all along.
        const { drawn, total } = await modelPixels(page);
        assert.ok(drawn > total * 0.02, `${drawn} of ${total} pixels`);
        assert.deepEqual(errors, []);
        await page.close();
      });

      await t.step("three.js is asked for before the view's chunk has arrived", async () => {
        const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
        const order: string[] = [];
        let release = () => {};
        const held = new Promise<void>((r) => (release = r));
        await page.route(/\/build\/scene_view-[^/]+\.js$/, async (route) => {
          order.push("view chunk asked");
          await held;
          order.push("view chunk answered");
          await route.continue();
        });
        page.on("request", (r) => {
          if (/\/build\/chunk-[^/]+\.js$/.test(r.url())) order.push(new URL(r.url()).pathname);
        });
        await page.goto(`${setup.shop}/`);
        // The mint, project and render go on while the view's chunk is held.
        await page.locator(`${INNER}[data-render-status="ready"]`).waitFor({ timeout: 60_000 });
        release();
        const { drawn, total } = await modelPixels(page);
        assert.ok(drawn > total * 0.02, `${drawn} of ${total} pixels`);
        const answered = order.indexOf("view chunk answered");
        const three = await page.evaluate(() =>
          (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
            .filter((r) => /\/build\/chunk-/.test(r.name))
            .sort((a, b) => b.encodedBodySize - a.encodedBodySize)[0].name
        );
        const asked = order.indexOf(new URL(three).pathname);
        assert.ok(asked >= 0 && asked < answered, order.join(", "));
        await page.close();
      });

      await t.step("an element removed while the view loads makes no WebGL context", async () => {
        const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.addInitScript(COUNT_CONTEXTS);
        let release = () => {};
        const held = new Promise<void>((r) => (release = r));
        let asked = false;
        await page.route(/\/build\/scene_view-[^/]+\.js$/, async (route) => {
          asked = true;
          await held;
          await route.continue();
        });
        await page.goto(`${setup.shop}/`);
        await page.locator(INNER).waitFor({ timeout: 60_000 });
        await until(() => asked, "the view's chunk asked for as the element mounted");
        await page.evaluate(() => document.querySelector("cad-configurator")!.remove());
        release();
        // Let the chunk arrive and any idle callback run.
        await page.waitForFunction(
          () =>
            (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).some((r) =>
              /\/build\/scene_view-/.test(r.name)
            ),
          null,
          { timeout: 30_000 },
        );
        await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
        assert.equal(
          await page.evaluate(() => (globalThis as { __contexts?: number }).__contexts),
          0,
        );
        assert.deepEqual(errors, []);
        await page.close();
      });
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
