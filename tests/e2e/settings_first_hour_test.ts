/**
 * A partner's first hour in the settings, in Chromium: the project preview shows a picture of the
 * model (the hub's PNG, decoded by the browser and read back through a canvas), a python-mode
 * design publishes from the web form (and a refused upload names the problem), and the page that
 * shows a new key once links to the project's embed snippets (iframe, custom element, React from
 * npm, server flow). Screenshots at 1280×900 and 390×844 go to test-artifacts/first_hour_*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startTestServer } from "../_helpers/server.ts";
import { rid } from "../_helpers/redis.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";

const BRACKET = new URL("../../examples/projects/wall-bracket/", import.meta.url).pathname;
const SHELF = new URL("../../examples/projects/shelf/", import.meta.url).pathname;

/** The preview image as Chromium decoded it: its size and how many pixels are not background. */
function pictureInBrowser(page: Page) {
  return page.evaluate(() => {
    const img = document.querySelector<HTMLImageElement>("#preview-picture img")!;
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const g = canvas.getContext("2d")!;
    g.drawImage(img, 0, 0);
    const { data } = g.getImageData(0, 0, canvas.width, canvas.height);
    let model = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i] - 0xee) + Math.abs(data[i + 2] - 0xf5) > 6) model++;
    }
    const box = img.getBoundingClientRect();
    return {
      complete: img.complete,
      natural: [img.naturalWidth, img.naturalHeight],
      shown: [Math.round(box.width), Math.round(box.height)],
      model,
      total: canvas.width * canvas.height,
      pageWidth: document.documentElement.scrollWidth,
      viewport: innerWidth,
    };
  });
}

Deno.test({
  name: "e2e - settings first hour: preview picture, python publish, key → embed snippets",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startTestServer({ redis: false });
    const hub = server.url.replace("localhost", "127.0.0.1");
    const browser = await launchBrowser();
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await desktop.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // Script errors only: answers with an error status (the refused upload's 422) are the test's.
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) {
        errors.push(m.text());
      }
    });
    const missing: string[] = [];
    page.on("response", (r) => r.status() === 404 && missing.push(r.url()));
    const shot = (name: string, p: Page = page) =>
      p.screenshot({ path: `${ARTIFACTS}first_hour_${name}.png`, fullPage: true });
    const slug = `bracket-${rid(3)}`;
    const python = `shelf-${rid(3)}`;
    try {
      await t.step("sign up and publish the wall bracket", async () => {
        await page.goto(`${hub}/auth/signup`);
        await page.fill('input[name="partnerName"]', "Bracket Shop");
        await page.fill('input[name="email"]', `owner-${rid()}@bracket.example`);
        await page.fill('input[name="password"]', "correct horse battery");
        await page.click('button[type="submit"]');
        await page.waitForURL(`${hub}/settings/projects`);
        for (const [title, s] of [["Wall bracket", slug], ["Bookshelf", python]]) {
          await page.goto(`${hub}/settings/projects`);
          await page.fill('input[name="title"]', title);
          await page.fill('input[name="slug"]', s);
          await page.click('form[action="/settings/projects"] button[type="submit"]');
          await page.waitForURL(`${hub}/settings/projects/${s}`);
        }
        await page.goto(`${hub}/settings/projects/${slug}`);
        const form = page.locator(`form[action="/settings/projects/${slug}"][enctype]`);
        await form.locator('input[name="template"]').setInputFiles(`${BRACKET}template.dag.json`);
        await form.locator('input[name="schema"]').setInputFiles(
          `${BRACKET}parameters.schema.json`,
        );
        await form.locator('button[type="submit"]').click();
        await page.waitForURL(/published=1/);
      });

      await t.step("the preview shows a picture of the model", async () => {
        await page.click('button:has-text("Render preview")');
        await page.locator("#preview-picture img").waitFor();
        const pic = await pictureInBrowser(page);
        assert.ok(pic.complete, "the image decoded");
        assert.deepEqual(pic.natural, [800, 500]);
        assert.ok(pic.model > pic.total * 0.05, `the model covers ${pic.model} of ${pic.total}`);
        assert.ok(pic.shown[0] > 300, `shown ${pic.shown}`);
        await page.locator("#preview-picture").scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${ARTIFACTS}first_hour_01_preview_view.png` });
        await shot("01_preview");
      });

      await t.step("a python-mode design publishes from the form", async () => {
        await page.goto(`${hub}/settings/projects/${python}`);
        const form = page.locator("#publish-python form");
        // Swapped files first: refused with the CLI's code, the form shown again.
        await form.locator('input[name="source"]').setInputFiles(`${SHELF}parameters.schema.json`);
        await form.locator('input[name="schema"]').setInputFiles(`${SHELF}design.py`);
        await form.locator('button[type="submit"]').click();
        await page.locator("#publish-python-error").waitFor();
        assert.equal(
          await page.locator("#publish-python-error").getAttribute("data-code"),
          "validation_failed",
        );
        assert.match(
          await page.locator("#publish-python-error").textContent() ?? "",
          /swapped/,
        );
        await shot("02a_python_refused");
        const again = page.locator("#publish-python form");
        await again.locator('input[name="source"]').setInputFiles(`${SHELF}design.py`);
        await again.locator('input[name="schema"]').setInputFiles(`${SHELF}parameters.schema.json`);
        await again.locator('button[type="submit"]').click();
        await page.waitForURL(`${hub}/settings/projects/${python}?published=1`);
        assert.match(await page.locator(".notice").textContent() ?? "", /Published version 1/);
        assert.match(await page.locator("#versions").textContent() ?? "", /python/);
        // Its preview says why there is no picture instead of failing.
        await page.click('button:has-text("Render preview")');
        await page.locator(".error", { hasText: "python-mode design" }).waitFor();
        await shot("02_python_published");
      });

      await t.step("the key-created page links to the project's embed snippets", async () => {
        await page.goto(`${hub}/settings/keys/new`);
        await page.fill('input[name="label"]', "Storefront");
        await page.fill('textarea[name="origins"]', "https://shop.example");
        await page.check(`input[name="projects"][value="${slug}"]`);
        await page.click('button:has-text("Create key")');
        await page.locator("#key-plaintext").waitFor();
        const keyId = (await page.locator("#key-plaintext").textContent())!.split("_")[1];
        await page.locator("#embed-links").scrollIntoViewIfNeeded();
        await shot("03_key_created");
        await page.click(`#embed-links a[href^="/settings/projects/${slug}"]`);
        await page.waitForURL(`${hub}/settings/projects/${slug}?key=${keyId}#embed`);
        for (const id of ["embed-iframe", "embed-element", "embed-react", "embed-server"]) {
          assert.ok(await page.locator(`#${id}`).isVisible(), id);
        }
        const react = await page.locator("#embed-react").textContent() ?? "";
        assert.ok(react.includes(`keyId={"${keyId}"}`), react);
        assert.ok(react.includes('from "@cad-configurator/sdk/react"'), react);
        const server = await page.locator("#embed-server").textContent() ?? "";
        assert.ok(server.includes(`SDK_KEY=sdk_${keyId}_<secret>`), server);
        // The anchor put the Embed section at the top of the window.
        const top = await page.locator("#embed").evaluate((el) => el.getBoundingClientRect().top);
        assert.ok(Math.abs(top) < 40, `the Embed section is at the top (${top})`);
        await page.screenshot({ path: `${ARTIFACTS}first_hour_04_embed_view.png` });
        await shot("04_embed");
      });

      await t.step("the same pages at 390×844", async () => {
        const phone = await browser.newContext({
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          storageState: await desktop.storageState(),
        });
        const mobile = await phone.newPage();
        await mobile.goto(`${hub}/settings/projects/${slug}`);
        await mobile.click('button:has-text("Render preview")');
        await mobile.locator("#preview-picture img").waitFor();
        const pic = await pictureInBrowser(mobile);
        assert.ok(pic.shown[0] <= 390 && pic.shown[0] > 250, `fits the phone: ${pic.shown}`);
        assert.ok(pic.pageWidth <= pic.viewport, `no sideways scroll (${pic.pageWidth})`);
        await mobile.locator("#preview-picture").scrollIntoViewIfNeeded();
        await mobile.screenshot({ path: `${ARTIFACTS}first_hour_05_mobile_preview.png` });
        await mobile.goto(`${hub}/settings/projects/${python}`);
        await mobile.locator("#publish-python").scrollIntoViewIfNeeded();
        await mobile.screenshot({ path: `${ARTIFACTS}first_hour_06_mobile_python.png` });
        await mobile.goto(`${hub}/settings/projects/${slug}#embed`);
        await mobile.screenshot({ path: `${ARTIFACTS}first_hour_07_mobile_embed.png` });
        await phone.close();
      });
      assert.deepEqual(errors, [], "no script errors");
      assert.deepEqual(missing.filter((u) => !u.endsWith("/favicon.ico")), [], "nothing missing");
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
