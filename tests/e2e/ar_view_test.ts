/**
 * "View in AR" in Chromium (issue 14, part 5): on desktop Chromium (no AR viewer) the element
 * shows no button and `viewInAr()` refuses; with an iPhone's user agent and anchors that support
 * `rel="ar"` (stubbed by an init script, as Safari's are), the button shows, is reached and
 * pressed from the keyboard, and hands Quick Look an `<a rel="ar">` whose `blob:` URL holds a
 * valid USDZ of the drawn model (read back with tests/client/_usdz_reader.ts).
 */
import assert from "node:assert/strict";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { formatViolations, runAxe } from "./axe.ts";
import { startShop } from "./storefront_fixture.ts";
import { readGeometryLayer, readRootLayer, readZipEntries } from "../client/_usdz_reader.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

const PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gear</title>
<script type="module" src="{{HUB_URL}}/sdk/v1/embed.js"></script></head>
<body><main><h1>Gear</h1>
<cad-configurator id="cfg" key-id="{{KEY_ID}}" project="spur-gear" hub-url="{{HUB_URL}}"
  style="display:block;height:640px"></cad-configurator></main>
<script>
  document.getElementById("cfg").addEventListener("cad-rendered", (e) => {
    window.lastTriangles = e.detail.result.triangles;
  });
</script></body></html>`;

/** What Safari reports: anchors support rel="ar"; clicks on such anchors are recorded, not followed. */
const QUICK_LOOK_STUB = `(() => {
  const supports = DOMTokenList.prototype.supports;
  DOMTokenList.prototype.supports = function (token) {
    return token === "ar" ? true : supports.call(this, token);
  };
  const click = HTMLAnchorElement.prototype.click;
  window.arClicks = [];
  HTMLAnchorElement.prototype.click = function () {
    if (this.rel !== "ar") return click.call(this);
    window.arClicks.push({
      href: this.href,
      download: this.download,
      firstChild: this.firstElementChild && this.firstElementChild.tagName,
      connected: this.isConnected,
    });
  };
})();`;

const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

Deno.test({
  name: "e2e - View in AR: hidden on desktop Chromium, a valid USDZ through Quick Look on iOS",
  ...e2e,
  async fn(t) {
    const setup = await startShop({ project: "spur-gear", extraPages: { "/ar.html": PAGE } });
    const browser = await launchBrowser();
    const errors: string[] = [];
    try {
      await t.step("desktop Chromium: no button, viewInAr() refuses", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${setup.shop}/ar.html`);
        await page.locator('cad-configurator [data-render-status="ready"]').waitFor({
          timeout: 30_000,
        });
        await page.locator("cad-configurator .cad-viewer__tools").first().waitFor();
        assert.equal(await page.locator("cad-configurator .cad-ar").count(), 0);
        assert.equal(await page.getByRole("button", { name: "View in AR" }).count(), 0);
        const refused = await page.evaluate(() =>
          (document.querySelector("cad-configurator") as unknown as {
            viewInAr(): Promise<unknown>;
          }).viewInAr().then(() => "opened", (e) => e.code)
        );
        assert.equal(refused, "ar_unavailable");
        await page.close();
      });

      await t.step("an iPhone: the button opens Quick Look with the model's USDZ", async () => {
        const context = await browser.newContext({
          userAgent: IPHONE_UA,
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
        });
        await context.addInitScript(QUICK_LOOK_STUB);
        const page = await context.newPage();
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${setup.shop}/ar.html`);
        await page.locator('cad-configurator [data-render-status="ready"]').waitFor({
          timeout: 30_000,
        });
        const button = page.getByRole("button", { name: "View in AR" });
        await button.waitFor({ timeout: 10_000 });
        assert.equal(
          await page.locator("cad-configurator .cad-ar").getAttribute("data-ar-mode"),
          "quick-look",
        );
        const violations = await runAxe(page);
        assert.deepEqual(violations, [], formatViolations(violations));
        await page.screenshot({ path: `${ARTIFACTS}ar_button_iphone.png` });

        // Reached and pressed from the keyboard, as any button.
        await button.focus();
        await page.keyboard.press("Enter");
        await page.waitForFunction(
          () =>
            (globalThis as unknown as { arClicks: unknown[] })
              .arClicks.length === 1,
          null,
          { timeout: 30_000 },
        );
        const [click] = await page.evaluate(() =>
          (globalThis as unknown as {
            arClicks: Array<
              { href: string; download: string; firstChild: string; connected: boolean }
            >;
          }).arClicks
        );
        assert.match(
          click.href,
          /^blob:http:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+#allowsContentScaling=0$/,
        );
        assert.equal(click.firstChild, "IMG", "Apple's markup: an image inside the anchor");
        assert.equal(click.download, "spur-gear.usdz");
        assert.ok(click.connected, "the anchor is in the document when clicked");
        await button.and(page.locator('[data-ar-state="idle"]')).waitFor();

        const { base64, type, triangles } = await page.evaluate(async (href) => {
          const blob = await (await fetch(href.split("#")[0])).blob();
          const bytes = new Uint8Array(await blob.arrayBuffer());
          let binary = "";
          for (const b of bytes) binary += String.fromCharCode(b);
          return {
            base64: btoa(binary),
            type: blob.type,
            triangles: (globalThis as unknown as { lastTriangles: number }).lastTriangles,
          };
        }, click.href);
        assert.equal(type, "model/vnd.usdz+zip");
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const entries = readZipEntries(bytes);
        assert.equal(entries[0].name, "model.usda");
        for (const e of entries) {
          assert.equal(e.method, 0, `${e.name} stored`);
          assert.equal(e.dataOffset % 64, 0, `${e.name} 64-byte aligned`);
        }
        const layers = new Map(entries.map((e) => [e.name, new TextDecoder().decode(e.data)]));
        const root = readRootLayer(layers.get("model.usda")!);
        assert.equal(root.metersPerUnit, 1);
        assert.equal(root.upAxis, "Y");
        assert.ok(root.meshes.length >= 1);
        const faces = root.meshes.reduce(
          (n, m) => n + readGeometryLayer(layers.get(m.geometry)!).faceVertexCounts.length,
          0,
        );
        assert.equal(faces, triangles, "every drawn triangle is in the USDZ");
        console.log(`USDZ from the element: ${bytes.length} B, ${triangles} triangles`);
        await context.close();
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
