import assert from "node:assert/strict";
import { startTestServer } from "../_helpers/server.ts";
import { readExamples } from "@/lib/hub/demo_seed.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels } from "./storefront_fixture.ts";

Deno.test({
  name: "e2e - the demo page mints a token through the browser flow",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startTestServer({ env: { SEED_DEMO: "true" } });
    const browser = await launchBrowser();
    try {
      assert.ok(server.demo, "the demo is seeded");
      const page = await browser.newPage();
      const url = server.url.replace("localhost", "127.0.0.1");
      await page.goto(`${url}/`);
      assert.equal(await page.locator("h1").textContent(), "CAD Configurator");
      assert.equal(await page.locator("#status").textContent(), "idle");
      await page.click("#mint");
      await page.locator('#status[data-status="ready"]').waitFor({ timeout: 60_000 });
      const claims = JSON.parse(await page.locator("#claims").textContent() ?? "{}");
      assert.equal(claims.origin, url, "the token is bound to the page's origin");
      assert.equal(claims.aud, "kernel-api");
      assert.equal(claims.project, server.demo.projectSlug);
      await page.screenshot({ path: `${ARTIFACTS}demo_page.png`, fullPage: true });
    } finally {
      await browser.close();
      await server.close();
    }
  },
});

Deno.test({
  name: "e2e - the demo page shows a live model, every example in its gallery, sign-up and docs",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startTestServer({ env: { SEED_DEMO: "true" } });
    const browser = await launchBrowser();
    try {
      const examples = (await readExamples()).map((e) => e.title).sort();
      for (
        const [name, viewport] of [["desktop", { width: 1440, height: 900 }], ["mobile", {
          width: 390,
          height: 844,
        }]] as const
      ) {
        await t.step(`${name}: the first load draws the demo project`, async () => {
          const page = await browser.newPage({ viewport });
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`${server.url}/`);
          await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({
            timeout: 60_000,
          });
          await page.waitForTimeout(300);
          const { drawn, total } = await modelPixels(page);
          assert.ok(drawn > total * 0.02, `the model covers pixels (${drawn} of ${total})`);
          const titles = await page.locator(".gallery__card .gallery__title").allTextContents();
          assert.deepEqual(titles.map((x) => x.replace(/Python$/, "").trim()).sort(), examples);
          for (const href of ["/auth/signup", "/auth/signin", "/docs"]) {
            assert.ok(await page.locator(`a[href="${href}"]`).first().isVisible(), href);
          }
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scrollWidth <= viewport.width, `no sideways scroll (${scrollWidth})`);
          await page.screenshot({ path: `${ARTIFACTS}demo_page_${name}.png` });
          assert.deepEqual(errors, []);
          await page.close();
        });
      }
      await t.step("the gallery puts another example on the stage", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${server.url}/`);
        await page.click('.gallery__card[data-project="vase"]');
        await page.waitForURL(/\?project=vase/);
        assert.equal(await page.locator(".live__head h2").textContent(), "Vase");
        await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({
          timeout: 60_000,
        });
        await page.waitForTimeout(300);
        const { drawn, total } = await modelPixels(page);
        assert.ok(drawn > total * 0.02, `the vase covers pixels (${drawn} of ${total})`);
        assert.equal(
          await page.locator('.gallery__card[aria-current="true"]').getAttribute("data-project"),
          "vase",
        );
        await page.screenshot({ path: `${ARTIFACTS}demo_page_vase.png` });
        await page.close();
      });
      await t.step("the demo key's hosted configurator, opened directly, draws", async () => {
        // The demo key lists the hub's own origin, so the page mints through the browser flow;
        // a key without it shows the not_embedded notice (configurator_iframe_test.ts).
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${server.url}/configurator/wall-bracket?key=${server.demo!.keyId}`);
        await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({
          timeout: 60_000,
        });
        await page.waitForTimeout(300);
        assert.equal(await page.locator('[data-error-code="not_embedded"]').count(), 0);
        const { drawn, total } = await modelPixels(page);
        assert.ok(drawn > total * 0.02, `the model covers pixels (${drawn} of ${total})`);
        assert.deepEqual(errors, []);
        await page.screenshot({ path: `${ARTIFACTS}demo_configurator_direct.png` });
        await page.close();
      });
      await t.step("the docs open from the page", async () => {
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
        await page.goto(`${server.url}/`);
        await page.click('a[href="/docs/embedding"] >> nth=0');
        assert.equal(
          await page.locator(".doc__body h1").first().textContent(),
          "Embedding the configurator",
        );
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= 390, `no sideways scroll (${scrollWidth})`);
        await page.screenshot({ path: `${ARTIFACTS}docs_embedding_mobile.png` });
        await page.close();
      });
    } finally {
      await browser.close();
      await server.close();
    }
  },
});

Deno.test({
  name: "e2e - a page on an origin the key does not allow cannot mint",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const hub = await startTestServer({ env: { SEED_DEMO: "true" } });
    // A second server plays an unlisted site that copied the demo keyId.
    const other = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
      new Response(
        `<!DOCTYPE html><p id="out">…</p><script type="module">
          const res = await fetch(${JSON.stringify(hub.url + "/api/v1/sdk/session-tokens")}, {
            method: "POST", headers: { "content-type": "application/json" },
            body: JSON.stringify({ keyId: ${
          JSON.stringify(hub.demo?.keyId)
        }, projectId: "demo-bracket" }),
          }).then((r) => "status " + r.status, (e) => "blocked: " + e.name);
          document.getElementById("out").textContent = res;
        </script>`,
        { headers: { "content-type": "text/html" } },
      ));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${other.addr.port}/`);
      await page.locator("#out", { hasText: /status|blocked/ }).waitFor({ timeout: 10_000 });
      // Not on the allowlist: the browser blocks the preflight, the page never sees a token.
      assert.match(await page.locator("#out").textContent() ?? "", /^blocked: TypeError$/);
    } finally {
      await browser.close();
      await other.shutdown();
      await hub.close();
    }
  },
});
