import assert from "node:assert/strict";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels, startShop } from "./storefront_fixture.ts";

Deno.test({
  name: "e2e - every example project draws in the custom element with its generated form",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const setup = await startShop();
    const browser = await launchBrowser();
    try {
      for (const project of setup.hub.demo!.projects) {
        await t.step(project, async () => {
          const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`${setup.shop}/?project=${project}`);
          await page.locator('cad-configurator .cad-configurator[data-render-status="ready"]')
            .waitFor({ timeout: 60_000 });
          await page.waitForTimeout(300);
          const { drawn, total } = await modelPixels(page);
          assert.ok(drawn > total * 0.02, `${project} covers pixels (${drawn} of ${total})`);
          const fields = await page.locator("cad-configurator .cad-field").count();
          assert.ok(fields >= 2, `${project} has a generated form (${fields} fields)`);
          await page.screenshot({ path: `${ARTIFACTS}example_${project}.png` });
          assert.deepEqual(errors, []);
          await page.close();
        });
      }
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
