/**
 * The axe helper itself: on a page with known WCAG failures it reports them (contrast, a missing
 * label, a missing lang), on the same page fixed it reports none (under a CSP that forbids every
 * script, as the product's pages forbid inline ones), and `exclude` leaves a subtree out.
 */
import assert from "node:assert/strict";
import { axeResult, formatViolations, runAxe } from "./axe.ts";
import { launchBrowser } from "./browser.ts";

const BAD = `<!DOCTYPE html><html><head><title>Bad</title></head><body>
<main><h1>Page</h1><p style="color:#999;background:#fff">Pale text</p>
<div id="widget"><input type="text"></div></main></body></html>`;

const GOOD = `<!DOCTYPE html><html lang="en"><head><title>Good</title>
<meta http-equiv="Content-Security-Policy" content="script-src 'none'"></head><body>
<main><h1>Page</h1><p style="color:#595959;background:#fff">Readable text</p>
<label for="q">Query</label><input id="q" type="text"></main></body></html>`;

Deno.test({
  name: "e2e - axe helper: finds known WCAG violations, none on the fixed page, exclude works",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.setContent(BAD);
      const bad = await runAxe(page);
      const ids = bad.map((v) => v.id).sort();
      assert.deepEqual(ids, ["color-contrast", "html-has-lang", "label"], formatViolations(bad));
      const excluded = await runAxe(page, { exclude: ["#widget"] });
      assert.deepEqual(excluded.map((v) => v.id).sort(), ["color-contrast", "html-has-lang"]);
      await page.setContent(GOOD);
      const good = await axeResult(page);
      assert.deepEqual(good.violations, [], formatViolations(good.violations));
      assert.ok(good.passes > 5, `rules passed: ${good.passes}`);
    } finally {
      await browser.close();
    }
  },
});
