/**
 * The embed's early requests (lib/sdk/early_requests.ts, lib/client/prefetch.ts) in Chromium on a
 * partner origin: `embed.js` sends the token mint and the project request while the element's
 * bundle is still on its way (here held back by 1.5 s), and the element adopts both answers: one
 * mint, one project and one render request in all, a ready token and a drawn model, and the element
 * defined (with its methods) before the page's `DOMContentLoaded`. A page whose element is
 * added after the bundle ran, and a server-flow element, start nothing early: their clients send
 * their own requests, once each.
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./browser.ts";
import { startShop } from "./storefront_fixture.ts";
import { FIRST_MODEL_MARKS } from "@/lib/client/scene_view.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

/** Held back this long, the element's bundle arrives well after the early requests' answers. */
const BUNDLE_DELAY_MS = 1_500;

const LATE_ELEMENT_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Late element</title><script type="module" src="{{HUB_URL}}/sdk/v1/embed.js"></script>
<style>cad-configurator{display:block;height:600px}</style></head><body><main id="shop"></main>
<script type="module">
  await customElements.whenDefined("cad-configurator");
  const el = document.createElement("cad-configurator");
  el.setAttribute("key-id", "{{KEY_ID}}");
  el.setAttribute("project", "wall-bracket");
  el.setAttribute("hub-url", "{{HUB_URL}}");
  document.getElementById("shop").append(el);
</script></body></html>`;

/** What a page asked of the hub: the mint and project requests, and when the bundle came. */
async function openAndCount(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  url: string,
  delayBundle: boolean,
) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const mints: string[] = [];
  const projects: string[] = [];
  const renders: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith("/session-tokens") && r.method() === "POST") mints.push(r.postData() ?? "");
    if (path.startsWith("/api/v1/projects/")) projects.push(r.url());
    if (path.endsWith("/render")) renders.push(r.url());
  });
  // What a partner's DOMContentLoaded handler finds: the element defined, its methods there.
  await page.addInitScript(() =>
    document.addEventListener("DOMContentLoaded", () => {
      const el = document.querySelector("cad-configurator") as { setParameters?: unknown } | null;
      (globalThis as { definedAtReady?: boolean }).definedAtReady =
        !!customElements.get("cad-configurator") &&
        (el === null || typeof el.setParameters === "function");
    })
  );
  if (delayBundle) {
    await page.route(/\/build\/embed-[0-9a-f]{12}\.js$/, async (route) => {
      await new Promise((r) => setTimeout(r, BUNDLE_DELAY_MS));
      await route.continue();
    });
  }
  await page.goto(url);
  await page.waitForFunction(
    (name) => performance.getEntriesByName(name).length > 0,
    FIRST_MODEL_MARKS.model,
    { timeout: 60_000 },
  );
  const timing = await page.evaluate(() => {
    const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
    const find = (re: RegExp) => resources.find((r) => re.test(new URL(r.name).pathname));
    return {
      mintEnd: find(/\/session-tokens$/)?.responseEnd ?? NaN,
      projectEnd: find(/^\/api\/v1\/projects\//)?.responseEnd ?? NaN,
      bundleEnd: find(/\/build\/embed-[0-9a-f]{12}\.js$/)?.responseEnd ?? NaN,
      status: document.querySelector("cad-configurator")!.getAttribute("data-token-status"),
      definedAtReady: (globalThis as { definedAtReady?: boolean }).definedAtReady,
    };
  });
  await page.close();
  return { mints, projects, renders, timing, errors };
}

Deno.test({
  name: "e2e - early requests: embed.js mints and loads the project before the bundle arrives",
  ...e2e,
  async fn() {
    const setup = await startShop({ extraPages: { "/late.html": LATE_ELEMENT_PAGE } });
    const browser = await launchBrowser();
    try {
      const early = await openAndCount(browser, `${setup.shop}/`, true);
      assert.deepEqual(early.errors, []);
      assert.equal(early.mints.length, 1, "one mint: the element took the early one's answer");
      assert.deepEqual(JSON.parse(early.mints[0]), {
        keyId: setup.keyId,
        projectId: setup.project,
      });
      assert.equal(early.projects.length, 1, "one project request");
      assert.equal(early.renders.length, 1, "one render: the first values are asked for once");
      assert.equal(early.timing.status, "ready");
      assert.equal(early.timing.definedAtReady, true, "defined before DOMContentLoaded");
      assert.ok(
        early.timing.mintEnd < early.timing.bundleEnd &&
          early.timing.projectEnd < early.timing.bundleEnd,
        `answered before the element's bundle arrived: ${JSON.stringify(early.timing)}`,
      );

      // An element added once the bundle ran: nothing was started for it, it sends its own.
      const late = await openAndCount(browser, `${setup.shop}/late.html`, false);
      assert.deepEqual(late.errors, []);
      assert.equal(late.mints.length, 1);
      assert.equal(late.projects.length, 1);
      assert.equal(late.timing.status, "ready");

      // A server-flow element (its token from the shop's backend): no mint from the browser.
      const server = await openAndCount(browser, `${setup.shop}/server-flow.html`, true);
      assert.deepEqual(server.errors, []);
      assert.equal(server.mints.length, 0);
      assert.equal(server.projects.length, 1, "its client loads the project itself");
      assert.equal(server.timing.status, "provided");
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
