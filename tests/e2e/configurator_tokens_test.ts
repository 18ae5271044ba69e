import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { serveStorefront } from "@/examples/storefront/serve.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { recordRenders, startShop, until } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

/** Records every `cad-*` event the element dispatches (they bubble out of its shadow root). */
async function recordEvents(
  page: Page,
): Promise<() => Promise<Array<{ type: string; detail: Record<string, unknown> }>>> {
  await page.addInitScript(() => {
    const log: unknown[] = ((globalThis as unknown as { __cad: unknown[] }).__cad = []);
    for (
      const type of ["cad-ready", "cad-status", "cad-error", "cad-tokenexpired", "cad-rendered"]
    ) {
      document.addEventListener(type, (e) => {
        const detail = (e as CustomEvent).detail;
        log.push({
          type,
          detail: type === "cad-rendered" ? { dagHash: detail.result.dagHash } : detail,
        });
      });
    }
  });
  return () =>
    page.evaluate(() =>
      (globalThis as unknown as { __cad: Array<{ type: string; detail: Record<string, unknown> }> })
        .__cad
    );
}

function inner(page: Page) {
  return page.locator("cad-configurator .cad-configurator");
}

async function nudgeWidth(page: Page, key = "ArrowRight") {
  const slider = page.locator('cad-configurator [data-param="width"] input[type=range]');
  await slider.focus();
  await slider.press(key);
}

Deno.test({
  name:
    "e2e - browser flow: a short-TTL token is refreshed before expiry without interruption, a forced expiry re-mints and retries",
  ...e2e,
  async fn() {
    let offsetMs = 0;
    const setup = await startShop({ clock: () => Date.now() + offsetMs, defaultTtlSeconds: 60 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const events = await recordEvents(page);
      const mints: number[] = [];
      page.on("response", (r) => {
        if (r.url().includes("/api/v1/sdk/session-tokens") && r.request().method() === "POST") {
          mints.push(r.status());
        }
      });
      const renders = recordRenders(page);
      const auth: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/render") && r.method() === "POST") {
          auth.push(r.headers().authorization);
        }
      });
      await page.goto(`${setup.shop}/`);
      await inner(page).and(page.locator('[data-render-status="ready"]')).waitFor({
        timeout: 30_000,
      });
      assert.deepEqual(mints, [200]);
      const firstToken = auth[0];

      // A 60 s token is refreshed at 30 s (the 50 % floor), while the old one still works.
      await until(() => mints.length >= 2, "the scheduled refresh", 45_000);
      assert.deepEqual(mints, [200, 200]);
      const states = (await events()).filter((e) => e.type === "cad-status")
        .map((e) => (e.detail.tokenStatus as { state: string }).state);
      assert.deepEqual(
        states.slice(states.indexOf("ready")).filter((s) => s !== "ready"),
        [],
        "once ready, the status never left ready (no loading, no error)",
      );
      await nudgeWidth(page);
      await until(() => renders.length >= 2, "a render with the refreshed token");
      assert.notEqual(auth.at(-1), firstToken, "renders use the refreshed token");
      assert.equal(renders.at(-1)!.status, 200);

      // Forced expiry: the servers' clock jumps past the token's exp plus the kernel's 60 s
      // leeway (a test clock).
      offsetMs = 300_000;
      const before = renders.length;
      await nudgeWidth(page);
      await until(() => renders.length >= before + 2, "the refused render and its retry");
      const tail = renders.slice(before);
      assert.equal(tail[0].status, 401, "the render service refused the expired token");
      assert.equal(tail.at(-1)!.status, 200, "the retry with a fresh token succeeded");
      assert.equal(mints.length, 3, "one re-mint");
      await inner(page).and(page.locator('[data-render-status="ready"]')).waitFor();
      assert.equal(await inner(page).getAttribute("data-error-code"), "");
      assert.equal((await events()).filter((e) => e.type === "cad-error").length, 0);
      await page.screenshot({ path: `${ARTIFACTS}storefront_after_reminted.png` });
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

Deno.test({
  name:
    "e2e - server flow: status provided, expiry reported through the callback, the new token is used",
  ...e2e,
  async fn() {
    // The hub's clock runs 55 s behind, so a 60 s token expires 5 s after the page loads.
    const setup = await startShop({ clock: () => Date.now() - 55_000, storefrontTtlSeconds: 60 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const events = await recordEvents(page);
      const auth: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/render") && r.method() === "POST") {
          auth.push(r.headers().authorization);
        }
      });
      await page.goto(`${setup.shop}/server-flow.html`);
      await inner(page).and(page.locator('[data-token-status="provided"]')).waitFor({
        timeout: 30_000,
      });
      await inner(page).and(page.locator('[data-render-status="ready"]')).waitFor({
        timeout: 30_000,
      });
      assert.match(await page.locator("#status").textContent() ?? "", /provided/);
      const first = auth[0];
      await until(
        async () => (await events()).some((e) => e.type === "cad-tokenexpired"),
        "the expiry callback",
        20_000,
      );
      // store.js asked the storefront's backend for a new token and handed it over.
      await until(async () => {
        const s = (await events()).filter((e) => e.type === "cad-status").at(-1);
        const st = s?.detail.tokenStatus as { state: string; token?: string } | undefined;
        return st?.state === "provided" && `Bearer ${st.token}` !== first;
      }, "the new provided token");
      await nudgeWidth(page);
      await until(() => auth.length >= 2, "a render with the new token");
      assert.notEqual(auth.at(-1), first);
      await inner(page).and(page.locator('[data-render-status="ready"]')).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}storefront_server_flow.png` });
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

Deno.test({
  name: "e2e - a token minted for origin A is refused on origin C, and the page says why",
  ...e2e,
  async fn() {
    const setup = await startShop();
    const mint = await fetch(`${setup.hub.url}/api/v1/sdk/session-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${setup.secretKey}` },
      body: JSON.stringify({ projectId: setup.project, origin: setup.shop }),
    });
    assert.equal(mint.status, 200);
    const { token } = await mint.json();
    const other = await serveStorefront({
      hubUrl: setup.hub.url,
      keyId: setup.keyId,
      project: setup.project,
      fixedSessionToken: token,
      port: 0,
    });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      await page.goto(`${other.origin}/server-flow.html`);
      const shown = inner(page).and(page.locator('[data-error-code="origin_mismatch"]'));
      await shown.waitFor({ timeout: 30_000 });
      // The answer is not readable cross-origin (by design), so read the hub's request log.
      const refused = setup.hub.logs.filter((l) =>
        l.includes("/render") && l.includes("origin_mismatch") && l.includes("403")
      );
      assert.ok(refused.length >= 1, "the render service refused it with origin_mismatch");
      const text = await page.locator("cad-configurator .cad-viewer__error").textContent() ?? "";
      assert.match(text, /not allowed/);
      assert.ok(text.includes(setup.shop) && text.includes(other.origin), text);
      await page.screenshot({ path: `${ARTIFACTS}storefront_origin_mismatch.png` });

      // The browser flow from origin C cannot even mint.
      await page.goto(`${other.origin}/`);
      await inner(page).and(page.locator('[data-token-status="error"]')).waitFor({
        timeout: 30_000,
      });
      const msg = await page.locator("cad-configurator .cad-viewer__error").textContent() ?? "";
      assert.ok(msg.includes(other.origin), msg);
      await page.screenshot({ path: `${ARTIFACTS}storefront_unlisted_origin.png` });
    } finally {
      await browser.close();
      await other.shutdown();
      await setup.close();
    }
  },
});
