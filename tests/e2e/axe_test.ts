/**
 * WCAG 2.2 AA on every site page, checked by axe-core in Chromium at 1280x900 and 390x844: the
 * demo page after its live model is drawn, the docs, sign-up and sign-in (and their refused
 * forms), and every settings page of a partner signed up in the browser (projects, a starter's
 * project page with its preview picture and a refused upload, the new-key form and its refused
 * origin, the key created once, the key page, a roll, usage, audit, members). Each page must
 * have zero violations; the per-page counts are printed.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { startTestServer } from "../_helpers/server.ts";
import { rid } from "../_helpers/redis.ts";
import { type AxeResult, axeResult, formatViolations, LANDMARK_RULES } from "./axe.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";

const EXAMPLE = new URL("../../examples/projects/wall-bracket/", import.meta.url).pathname;

/** The live configurator on `/` belongs to the configurator's own accessibility work. */
const CONFIGURATOR_EXCLUDE = Deno.env.get("AXE_EXCLUDE_CONFIGURATOR") === "1"
  ? [".cad-configurator"]
  : [];

const VIEWPORTS = [
  ["desktop", { width: 1280, height: 900 }],
  ["mobile", { width: 390, height: 844 }],
] as const;

/** Presses Tab until `selector` has the focus (as a keyboard user gets there). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The focused element's ring: outline style and width (px) as computed. */
async function focusRing(page: Page): Promise<{ style: string; width: number; color: string }> {
  return await page.evaluate(() => {
    const cs = getComputedStyle(document.activeElement!);
    return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), color: cs.outlineColor };
  });
}

Deno.test({
  name: "e2e - axe-core: zero WCAG 2.2 AA violations on every site page, desktop and phone",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startTestServer({ env: { SEED_DEMO: "true" } });
    const hub = server.url.replace("localhost", "127.0.0.1");
    const browser = await launchBrowser();
    const results: Array<{ view: string; name: string; result: AxeResult }> = [];
    const failures: string[] = [];
    const errors: string[] = [];
    /** Runs axe on the page as it is, records the result and a screenshot. */
    const check = async (page: Page, view: string, name: string, exclude: string[] = []) => {
      const result = await axeResult(page, { exclude });
      results.push({ view, name, result });
      await page.screenshot({ path: `${ARTIFACTS}axe_${view}_${name}.png`, fullPage: true });
      if (result.violations.length > 0) {
        failures.push(`${view} ${name} (${result.url}):\n${formatViolations(result.violations)}`);
      }
      // Landmarks: all content in one, one main, a heading 1 (axe's best-practice rules).
      const landmarks = await axeResult(page, { exclude, rules: LANDMARK_RULES });
      if (landmarks.violations.length > 0) {
        failures.push(`${view} ${name} landmarks:\n${formatViolations(landmarks.violations)}`);
      }
      const description = await page.locator('head meta[name="description"]').getAttribute(
        "content",
      );
      if (!description || description.length < 40) {
        failures.push(`${view} ${name}: meta description ${JSON.stringify(description)}`);
      }
      // Reflow (WCAG 1.4.10): nothing wider than the window at either size.
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      const width = page.viewportSize()!.width;
      if (wide > width) failures.push(`${view} ${name}: scrolls sideways (${wide} > ${width})`);
      if ((await page.locator('head link[rel="icon"]').count()) === 0) {
        failures.push(`${view} ${name}: no link rel=icon`);
      }
    };
    // A refused form is answered 4xx by design; any other failed load (a missing favicon, a
    // script, a style) and any script error is a fault.
    const watch = (page: Page) => {
      page.on("response", (res) => {
        if (res.status() >= 400 && res.request().resourceType() !== "document") {
          errors.push(`${page.url()}: ${res.status()} ${res.url()}`);
        }
      });
      page.on("console", (m) => {
        if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) {
          errors.push(`${page.url()}: ${m.text()}`);
        }
      });
      page.on("pageerror", (e) => errors.push(`${page.url()}: ${e}`));
    };
    const email = `axe-${rid()}@shop.example`;
    const password = "correct horse battery";
    let slug = "";
    let keyId = "";
    try {
      for (const [view, viewport] of VIEWPORTS) {
        await t.step(`${view}: public pages`, async () => {
          const context = await browser.newContext({ viewport });
          const page = await context.newPage();
          watch(page);
          await page.goto(`${hub}/`);
          await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({
            timeout: 60_000,
          });
          await page.waitForTimeout(300);
          await check(page, view, "home", CONFIGURATOR_EXCLUDE);
          await page.goto(`${hub}/docs`);
          await check(page, view, "docs");
          await page.goto(`${hub}/docs/embedding`);
          await check(page, view, "docs_embedding");
          await page.goto(`${hub}/auth/signup`);
          await check(page, view, "signup");
          await page.goto(`${hub}/auth/signin`);
          await check(page, view, "signin");
          // A refused sign-in: the error is announced and tied to the form.
          await page.fill('input[name="email"]', `nobody-${rid()}@shop.example`);
          await page.fill('input[name="password"]', "not the password");
          await page.click('button[type="submit"]');
          await page.locator(".error").waitFor();
          await check(page, view, "signin_refused");
          if (view === "desktop") {
            await page.goto(`${hub}/auth/signup`);
            await page.fill('input[name="partnerName"]', "Axe Shop");
            await page.fill('input[name="email"]', email);
            await page.fill('input[name="password"]', password);
            await page.click('button[type="submit"]');
            await page.waitForURL(`${hub}/settings/projects`);
            await context.clearCookies();
          }
          // Signing up again with the same email is refused.
          await page.goto(`${hub}/auth/signup`);
          await page.fill('input[name="partnerName"]', "Axe Shop");
          await page.fill('input[name="email"]', email);
          await page.fill('input[name="password"]', password);
          await page.click('button[type="submit"]');
          await page.locator(".error").waitFor();
          await check(page, view, "signup_refused");
          await context.close();
        });

        await t.step(`${view}: settings pages`, async () => {
          const context: BrowserContext = await browser.newContext({ viewport });
          const page = await context.newPage();
          watch(page);
          await page.goto(`${hub}/auth/signin`);
          await page.fill('input[name="email"]', email);
          await page.fill('input[name="password"]', password);
          await page.click('button[type="submit"]');
          await page.waitForURL(/\/settings\//);
          await page.goto(`${hub}/settings/projects`);
          await check(page, view, "projects");
          if (!slug) {
            await page.click('form:has(input[name="starter"][value="wall-bracket"]) button');
            await page.waitForURL(/\/settings\/projects\/[^/?]+/);
            slug = new URL(page.url()).pathname.split("/").pop()!;
          }
          await page.goto(`${hub}/settings/projects/${slug}`);
          await check(page, view, "project");
          await page.click('button:has-text("Render preview")');
          await page.locator("#preview-picture").waitFor();
          await check(page, view, "project_preview");
          // A refused upload: the two files swapped.
          await page.setInputFiles('input[name="template"]', `${EXAMPLE}parameters.schema.json`);
          await page.setInputFiles('input[name="schema"]', `${EXAMPLE}template.dag.json`);
          await page.click('form[enctype="multipart/form-data"] button[type="submit"]');
          await page.locator("#publish-error").waitFor();
          await check(page, view, "project_upload_refused");
          await page.goto(`${hub}/settings/projects/${slug}/publish-python`);
          await check(page, view, "project_publish_python");
          // A new key: first refused (an origin with a path), then created and shown once.
          await page.goto(`${hub}/settings/keys/new`);
          await check(page, view, "key_new");
          await page.fill('input[name="label"]', `Storefront ${view}`);
          await page.fill('textarea[name="origins"]', "https://shop.example/products");
          await page.click('button:has-text("Create key")');
          await page.locator(".error").waitFor();
          await check(page, view, "key_new_refused");
          await page.fill('textarea[name="origins"]', "https://shop.example");
          await page.click('button:has-text("Create key")');
          await page.locator("#key-plaintext").waitFor();
          keyId = (await page.locator("#key-plaintext").textContent())!.split("_")[1];
          await check(page, view, "key_created");
          await page.goto(`${hub}/settings/keys`);
          await check(page, view, "keys");
          await page.goto(`${hub}/settings/keys/${keyId}`);
          await check(page, view, "key");
          await page.fill('input[name="test"]', "https://shop.example/products/1");
          await page.click('button:has-text("Test")');
          await page.locator("#origin-test-result").waitFor();
          await check(page, view, "key_origin_tested");
          await page.click('button:has-text("Roll secret")');
          await page.locator("#key-plaintext").waitFor();
          await check(page, view, "key_rolled");
          // Focus states, reached with the keyboard: a settings menu link, a button, an input.
          await page.goto(`${hub}/settings/keys/new`);
          for (
            const [what, selector] of [
              ["menu_link", '.sidenav a[href="/settings/projects"]'],
              ["input", 'input[name="label"]'],
              ["button", 'form.stack button[type="submit"]'],
            ] as const
          ) {
            await tabTo(page, selector);
            const ring = await focusRing(page);
            assert.equal(ring.style, "solid", `${view} ${what}: a focus ring`);
            assert.ok(ring.width >= 2, `${view} ${what}: ring ${ring.width}px`);
            assert.equal(ring.color, "rgb(29, 91, 216)", `${view} ${what}: the focus colour`);
            const box = (await page.locator(selector).boundingBox())!;
            await page.screenshot({
              path: `${ARTIFACTS}axe_focus_${view}_${what}.png`,
              clip: {
                x: Math.max(0, box.x - 24),
                y: Math.max(0, box.y - 24),
                width: Math.min(viewport.width - Math.max(0, box.x - 24), box.width + 48),
                height: box.height + 48,
              },
            });
          }
          await page.goto(`${hub}/settings/usage`);
          await check(page, view, "usage");
          await page.goto(`${hub}/settings/usage/${keyId}`);
          await check(page, view, "usage_key");
          await page.goto(`${hub}/settings/audit`);
          await check(page, view, "audit");
          await page.goto(`${hub}/settings/members`);
          await check(page, view, "members");
          await context.close();
        });
      }
      await t.step("the site icon is served where browsers look for it", async () => {
        for (
          const [path, type] of [["/favicon.ico", "image/x-icon"], [
            "/favicon.svg",
            "image/svg+xml",
          ]]
        ) {
          const res = await fetch(`${hub}${path}`);
          const body = new Uint8Array(await res.arrayBuffer());
          assert.equal(res.status, 200, path);
          assert.equal(res.headers.get("content-type"), type, path);
          assert.ok(body.length > 100, `${path}: ${body.length} bytes`);
        }
      });
      await t.step("the results, page by page", () => {
        for (const { view, name, result } of results) {
          console.log(
            `axe ${view.padEnd(7)} ${name.padEnd(24)} violations ${result.violations.length}` +
              `  passes ${result.passes}  incomplete ${result.incomplete}` +
              `  (${new URL(result.url).pathname})`,
          );
        }
        if (CONFIGURATOR_EXCLUDE.length > 0) {
          console.log(`axe: excluded on /: ${CONFIGURATOR_EXCLUDE.join(", ")}`);
        }
        assert.equal(results.length, 2 * 23, "every page was checked at both sizes");
        assert.deepEqual(failures, [], failures.join("\n\n"));
        assert.deepEqual(errors, [], "no failed loads or script errors");
      });
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
