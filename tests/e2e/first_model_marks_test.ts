/**
 * The viewer's first-model timing (lib/client/scene_view.ts, `FIRST_MODEL_MARKS`) and its
 * start-up order, in Chromium on a partner origin: one `first-scene` and one `first-model` mark
 * per view, after the render's answer and in that order, none again on later scenes; on this
 * software rasterizer (SwiftShader) the view keeps its stand-in light and builds no environment
 * map by itself, and a page that asks for the map gets it after the first model, drawn again; a
 * configurator that never gets a scene (an unknown project) draws nothing at all (its canvas stays
 * transparent over the stage).
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./browser.ts";
import { dagHashChange, startShop } from "./storefront_fixture.ts";
import { FIRST_MODEL_MARKS } from "@/lib/client/scene_view.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

const UNKNOWN_PROJECT_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Unknown project</title><script type="module" src="{{HUB_URL}}/sdk/v1/embed.js"></script>
<style>cad-configurator{display:block;height:600px}</style></head><body><main>
<cad-configurator key-id="{{KEY_ID}}" project="no-such-project" hub-url="{{HUB_URL}}"></cad-configurator>
</main></body></html>`;

interface ViewApi {
  view: { framesDrawn: number; prepared: boolean; lighting: string; prepare(): void } | null;
  setParameters(values: Record<string, unknown>): void;
}

Deno.test({
  name: "e2e - first model: one scene mark and one drawn mark per view, in order, after the answer",
  ...e2e,
  async fn() {
    const setup = await startShop({ extraPages: { "/unknown.html": UNKNOWN_PROJECT_PAGE } });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${setup.shop}/`);
      await page.waitForFunction(
        (name) => performance.getEntriesByName(name).length > 0,
        FIRST_MODEL_MARKS.model,
        { timeout: 60_000 },
      );
      const read = () =>
        page.evaluate((marks) => {
          const entries = (name: string) =>
            (performance.getEntriesByName(name) as PerformanceMark[]).map((m) => ({
              at: m.startTime,
              view: (m.detail as { view: number }).view,
            }));
          const render = (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
            .find((r) => r.name.endsWith("/render"));
          const el = document.querySelector("cad-configurator") as unknown as ViewApi;
          return {
            scene: entries(marks.scene),
            model: entries(marks.model),
            renderEnd: render?.responseEnd ?? NaN,
            prepared: el.view?.prepared ?? false,
            lighting: el.view?.lighting ?? "",
            frames: el.view?.framesDrawn ?? -1,
          };
        }, FIRST_MODEL_MARKS);
      // SwiftShader: the view keeps the stand-in light; the map it would build after the first
      // model (on a GPU) is not built by itself, however many frames and tasks pass.
      await page.evaluate(() =>
        new Promise((r) => requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(r))))
      );
      const first = await read();
      assert.equal(first.scene.length, 1, "one first-scene mark");
      assert.equal(first.model.length, 1, "one first-model mark");
      assert.equal(first.scene[0].view, first.model[0].view, "both marks name the same view");
      assert.ok(first.scene[0].at >= first.renderEnd, "the scene mark follows the render's answer");
      assert.ok(first.model[0].at >= first.scene[0].at, "drawn after it was handed over");
      assert.equal(first.lighting, "stand-in", "a software rasterizer keeps the stand-in light");
      assert.equal(first.prepared, false, "no environment map built by itself");
      // Asked for, the map is built after the first model and the model drawn again with it.
      await page.evaluate(() =>
        (document.querySelector("cad-configurator") as unknown as ViewApi).view!.prepare()
      );
      await page.waitForFunction(
        (frames) => {
          const view = (document.querySelector("cad-configurator") as unknown as ViewApi).view;
          return view?.prepared && view.framesDrawn > frames;
        },
        first.frames,
        { timeout: 60_000 },
      );

      // A later scene marks nothing again.
      const hash = await page.locator("cad-configurator .cad-configurator").getAttribute(
        "data-dag-hash",
      );
      await page.evaluate(() =>
        (document.querySelector("cad-configurator") as unknown as ViewApi).setParameters({
          width: 77,
        })
      );
      await dagHashChange(page, hash);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
      const later = await read();
      assert.equal(later.scene.length, 1);
      assert.equal(later.model.length, 1);
      assert.ok(later.frames > first.frames, "the new scene was drawn");
      assert.deepEqual(errors, []);

      // No scene ever: no frame drawn, no environment built, no marks.
      const empty = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await empty.goto(`${setup.shop}/unknown.html`);
      await empty.locator(
        'cad-configurator .cad-configurator[data-error-code]:not([data-error-code=""])',
      )
        .waitFor({ timeout: 30_000 });
      // The view is made once three.js has loaded, which may come after the error.
      await empty.locator("cad-configurator canvas").waitFor({
        state: "attached",
        timeout: 30_000,
      });
      const none = await empty.evaluate((marks) => {
        // An undrawn WebGL canvas is transparent; any frame paints the opaque background.
        const gl = document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
          "canvas",
        ) as HTMLCanvasElement;
        const c = document.createElement("canvas");
        c.width = gl.width;
        c.height = gl.height;
        const ctx = c.getContext("2d")!;
        ctx.drawImage(gl, 0, 0);
        const data = ctx.getImageData(0, 0, c.width, c.height).data;
        let opaque = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) opaque++;
        return {
          opaque,
          marks: performance.getEntriesByName(marks.scene).length +
            performance.getEntriesByName(marks.model).length,
        };
      }, FIRST_MODEL_MARKS);
      assert.deepEqual(none, { opaque: 0, marks: 0 }, "nothing drawn, nothing marked");
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

/**
 * Counts, on the page, how often a canvas that has a WebGL context is given a new width or height
 * (each one reallocates its drawing buffer, and on a software rasterizer waits on the GPU process
 * several times), and how big it ended up.
 */
const COUNT_RESHAPES = `(() => {
  const withContext = new WeakSet();
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (...args) {
    const context = getContext.apply(this, args);
    if (context && String(args[0]).startsWith("webgl")) withContext.add(this);
    return context;
  };
  globalThis.__reshapes = [];
  for (const side of ["width", "height"]) {
    const own = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, side);
    Object.defineProperty(HTMLCanvasElement.prototype, side, {
      ...own,
      set(value) {
        const before = own.get.call(this);
        own.set.call(this, value);
        if (withContext.has(this) && own.get.call(this) !== before) {
          globalThis.__reshapes.push(side + " " + before + " → " + own.get.call(this));
        }
      },
    });
  }
})();`;

Deno.test({
  name:
    "e2e - first model: the view's drawing buffer is made at the view's size, not resized on its way",
  ...e2e,
  async fn() {
    const setup = await startShop();
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await page.addInitScript(COUNT_RESHAPES);
      await page.goto(`${setup.shop}/`);
      await page.waitForFunction(
        (name) => performance.getEntriesByName(name).length > 0,
        FIRST_MODEL_MARKS.model,
        { timeout: 60_000 },
      );
      const seen = await page.evaluate(() => {
        const canvas = document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
          "canvas",
        )!;
        return {
          reshapes: (globalThis as unknown as { __reshapes: string[] }).__reshapes,
          buffer: [canvas.width, canvas.height],
          shown: [canvas.clientWidth, canvas.clientHeight],
        };
      });
      assert.deepEqual(seen.reshapes, [], "no size change once the context exists");
      assert.deepEqual(seen.buffer, seen.shown, "the buffer has the shown size (device ratio 1)");
      // The page's own resize still reaches the buffer.
      await page.setViewportSize({ width: 900, height: 800 });
      await page.waitForFunction(
        () => {
          const canvas = document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
            "canvas",
          )!;
          return canvas.width === canvas.clientWidth && canvas.clientWidth < 900;
        },
        null,
        { timeout: 10_000 },
      );
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
