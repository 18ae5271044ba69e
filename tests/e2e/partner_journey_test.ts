/**
 * A new partner's whole journey in Chromium, counted in user steps: from the product's first page
 * (a seeded hub, as `deno task start` leaves it) to a configurator live on the partner's own site
 * (a second origin). Each `userStep` is one thing the partner does — a click, or filling one form
 * and sending it, or pasting a snippet into their page; the test fails above six. Looking at the
 * model and moving a slider on the storefront are checks, not setup steps. The journey's wall time
 * is printed; screenshots (desktop, and 390×844 for the pages a partner sees on a phone) go to
 * test-artifacts/journey_*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { rid, startTestServer } from "../_helpers/server.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels } from "./storefront_fixture.ts";

const MAX_USER_STEPS = 6;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** The partner's storefront: whatever HTML they paste into their page. */
function storePage(snippet: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Bracket Shop</title>
<style>body{font-family:system-ui,sans-serif;margin:0;padding:16px 24px;background:#fafafa}</style>
</head><body><h1>Bracket Shop</h1><p>Made to your measurements.</p>
${snippet}
</body></html>`;
}

/** Waits for the configurator on `page` to draw and checks the model covers pixels. */
async function drawn(page: Page, what: string): Promise<void> {
  await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({ timeout: 90_000 });
  await page.waitForTimeout(300);
  const { drawn, total } = await modelPixels(page);
  assert.ok(drawn > total * 0.02, `${what}: the model covers pixels (${drawn} of ${total})`);
}

Deno.test({
  name:
    `e2e - partner journey: first page to a configurator live on their own site in ≤ ${MAX_USER_STEPS} steps`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startTestServer({ env: { SEED_DEMO: "true" } });
    const hub = server.url;
    let storeHtml = "";
    const store = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      () =>
        storeHtml
          ? new Response(storeHtml, { headers: { "content-type": "text/html; charset=utf-8" } })
          : new Response("not found", { status: 404 }),
    );
    const storeOrigin = `http://127.0.0.1:${store.addr.port}`;
    assert.notEqual(new URL(hub).origin, storeOrigin, "the storefront is another origin");
    const browser = await launchBrowser();
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: hub });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const shot = async (name: string, p: Page = page, phone = true) => {
      await p.screenshot({ path: `${ARTIFACTS}journey_${name}.png`, fullPage: true });
      if (!phone) return;
      await p.setViewportSize(PHONE);
      await p.screenshot({ path: `${ARTIFACTS}journey_${name}_phone.png`, fullPage: true });
      const wide = await p.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(wide <= 1, `${name}: no sideways scroll on a phone (${wide} px)`);
      await p.setViewportSize(DESKTOP);
    };
    const steps: string[] = [];
    /** One partner action; the journey stops at the first that fails. */
    const userStep = async (name: string, fn: () => Promise<void>) => {
      const ok = await t.step(`user step ${steps.length + 1}: ${name}`, async () => {
        steps.push(name);
        await fn();
      });
      if (!ok) throw new Error(`the journey stopped at: ${name}`);
    };
    let snippet = "";
    let storefront: Page | undefined;
    const started = performance.now();
    try {
      await page.goto(`${hub}/`);
      await drawn(page, "the first page");
      await shot("00_first_page", page, false);

      await userStep("click “Sign up” on the first page", async () => {
        await page.click('header a[href="/auth/signup"]');
        await page.waitForURL(`${hub}/auth/signup`);
      });
      await userStep("fill in the sign-up form and send it", async () => {
        await page.fill('input[name="partnerName"]', "Bracket Shop");
        await page.fill('input[name="email"]', `owner-${rid()}@bracket.example`);
        await page.fill('input[name="password"]', "correct horse battery");
        await page.click('button[type="submit"]');
        await page.waitForURL(`${hub}/settings/projects`);
        await shot("01_projects");
      });
      await userStep("use the wall-bracket starter", async () => {
        await page.click('form:has(input[name="starter"][value="wall-bracket"]) button');
        // The demo partner owns `wall-bracket` too: slugs are per partner.
        await page.waitForURL(`${hub}/settings/projects/wall-bracket?published=1`);
        assert.match(await page.locator("#versions").textContent() ?? "", /1 \(current\)/);
        await shot("02_project");
      });
      await userStep("enter the site's origin and create a key for the project", async () => {
        await page.fill('#quick-key input[name="origins"]', storeOrigin);
        await page.click('#quick-key button[type="submit"]');
        await page.locator("#key-plaintext").waitFor();
        await shot("03_key_created");
      });
      await userStep("copy the embed snippet", async () => {
        await page.click('button[data-copy="snippet-element"]');
        snippet = await page.evaluate(() => navigator.clipboard.readText());
        assert.ok(snippet.includes("<cad-configurator"), snippet);
        assert.ok(snippet.includes('project="wall-bracket"'), snippet);
      });
      await userStep("paste it into the storefront page and open it", async () => {
        storeHtml = storePage(snippet);
        storefront = await context.newPage();
        storefront.on("pageerror", (e) => errors.push(e.message));
        await storefront.goto(`${storeOrigin}/`);
        await drawn(storefront, "the storefront");
      });
      const wallMs = Math.round(performance.now() - started);

      await t.step(
        "the configurator on the storefront is live: a slider renders anew",
        async () => {
          const s = storefront!;
          const slider = s.locator('cad-configurator input[type="range"]').first();
          const rendered = s.waitForResponse((r) =>
            r.request().method() === "POST" && new URL(r.url()).pathname.startsWith("/v1/kernels/")
          );
          await slider.focus();
          await s.keyboard.press("ArrowRight");
          const res = await rendered;
          assert.equal(res.status(), 200);
          await drawn(s, "after a slider change");
          await shot("04_storefront", s);
        },
      );

      assert.ok(
        steps.length <= MAX_USER_STEPS,
        `${steps.length} user steps (at most ${MAX_USER_STEPS})`,
      );
      assert.deepEqual(errors, []);
      console.log(
        `partner journey: ${steps.length} user steps, ${(wallMs / 1000).toFixed(1)} s wall ` +
          `(first page → model on ${storeOrigin}):\n  ${steps.join("\n  ")}`,
      );
    } finally {
      await browser.close();
      await store.shutdown();
      await server.close();
    }
  },
});
