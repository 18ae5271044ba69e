import assert from "node:assert/strict";
import { serveStorefront } from "@/examples/storefront/serve.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels, startShop, until } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

interface Msg {
  type: string;
  [k: string]: unknown;
}

Deno.test({
  name:
    "e2e - hosted configurator in an iframe: allowed origin works with postMessage and a verifiable signed configuration, other origins are blocked",
  ...e2e,
  async fn(t) {
    const setup = await startShop();
    // Origin C: the same storefront on a port the key does not list.
    const stranger = await serveStorefront({
      hubUrl: setup.hub.url,
      keyId: setup.keyId,
      project: setup.project,
      port: 0,
    });
    const browser = await launchBrowser();
    try {
      await t.step(
        "allowed origin: ready, rendered, setParameters, signed configuration",
        async () => {
          const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`${setup.shop}/iframe.html`);
          const events = () =>
            page.evaluate(() => (globalThis as unknown as { cadEvents: Msg[] }).cadEvents);
          await until(
            async () => (await events()).some((m) => m.type === "cad:rendered"),
            "first render",
          );
          const ready = (await events()).find((m) => m.type === "cad:ready")!;
          assert.equal(ready.project, "wall-bracket");
          assert.equal(typeof ready.version, "number");
          const first = (await events()).find((m) => m.type === "cad:rendered")!;
          assert.match(String(first.dagHash), /^[0-9a-f]{64}$/);
          const frame = page.frameLocator("#frame");
          await frame.locator('.cad-configurator[data-token-status="ready"]').waitFor();
          await page.waitForTimeout(300);
          const hosted = page.frames().find((f) => f.url().includes("/configurator/"))!;
          const pixels = await modelPixels(hosted);
          assert.ok(pixels.drawn > pixels.total * 0.02, `the model is drawn (${pixels.drawn})`);

          // setParameters from the parent → change + rendered with a new hash.
          await page.click("#wide");
          await until(
            async () =>
              (await events()).some((m) =>
                m.type === "cad:rendered" && m.dagHash !== first.dagHash
              ),
            "render after setParameters",
          );
          const change = (await events()).find((m) => m.type === "cad:change")!;
          assert.equal((change.values as Record<string, unknown>).width, 100);
          const rendered = (await events()).filter((m) => m.type === "cad:rendered").at(-1)!;
          assert.equal((rendered.values as Record<string, unknown>).width, 100);
          assert.ok(Array.isArray(rendered.meshes) && rendered.meshes.length > 0);
          const bbox = rendered.bbox as { min: number[]; max: number[] };
          assert.equal(
            Math.round(bbox.max[0] - bbox.min[0]),
            100,
            "the bounding box is 100 mm wide",
          );
          await frame.locator('[data-param="width"] output', { hasText: "100 mm" }).waitFor();

          // getConfiguration → hub-signed JWS → the storefront's server verifies it with the JWKS.
          await page.click("#add");
          await page.locator('#cart[data-state="ok"]').waitFor({ timeout: 15_000 });
          const cfg = (await events()).find((m) => m.type === "cad:configuration")!;
          assert.equal(typeof cfg.configuration, "string");
          const payload = cfg.payload as Record<string, unknown>;
          assert.equal(payload.project, "wall-bracket");
          assert.equal((payload.values as Record<string, unknown>).width, 100);
          assert.equal(payload.dagHash, rendered.dagHash, "the hub's hash is the render's hash");
          const item = await page.evaluate(() =>
            (globalThis as unknown as { cartItem: { item: { dagHash: string } } }).cartItem
          );
          assert.equal(item.item.dagHash, rendered.dagHash);

          // The hub's verify endpoint agrees, and refuses a tampered payload.
          const verify = (configuration: string) =>
            fetch(`${setup.hub.url}/sdk/v1/configurations/verify`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ configuration }),
            }).then((r) => r.json());
          assert.equal((await verify(String(cfg.configuration))).valid, true);
          const [h, , s] = String(cfg.configuration).split(".");
          const forged = btoa(
            JSON.stringify({ ...payload, values: { ...payload.values as object, width: 20 } }),
          )
            .replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
          assert.deepEqual(await verify(`${h}.${forged}.${s}`), {
            valid: false,
            reason: "invalid_signature",
          });

          await page.screenshot({ path: `${ARTIFACTS}storefront_iframe.png` });
          assert.deepEqual(errors, []);
          await page.close();
        },
      );

      await t.step("origin not on the allowlist: the browser refuses to frame it", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        const console: string[] = [];
        page.on("console", (m) => console.push(m.text()));
        await page.goto(`${stranger.origin}/iframe.html`);
        await until(() => console.some((c) => c.includes("frame-ancestors")), "CSP report", 15_000);
        const frame = page.frames().find((f) => f !== page.mainFrame())!;
        assert.equal(await frame.locator(".cad-configurator").count(), 0);
        assert.ok(console.some((c) => c.includes(stranger.origin) || c.includes("ancestor")));
        await page.screenshot({ path: `${ARTIFACTS}storefront_iframe_blocked.png` });
        await page.close();
      });

      await t.step("unknown key: a clear error page with the problem code", async () => {
        const page = await browser.newPage();
        const res = await page.goto(
          `${setup.hub.url}/configurator/wall-bracket?key=nosuchkey0000000000000`,
        );
        assert.equal(res?.status(), 401);
        assert.equal(
          await page.locator("[data-error-code]").getAttribute("data-error-code"),
          "unknown_key",
        );
        const res2 = await page.goto(
          `${setup.hub.url}/configurator/not-a-project?key=${setup.keyId}`,
        );
        assert.equal(res2?.status(), 403);
        assert.equal(
          await page.locator("[data-error-code]").getAttribute("data-error-code"),
          "project_not_allowed",
        );
        // Opened top-level (not framed by an allowed origin), it mints nothing and says why.
        await page.goto(`${setup.hub.url}/configurator/wall-bracket?key=${setup.keyId}`);
        await page.locator('[data-error-code="not_embedded"]').waitFor({ timeout: 15_000 });
        await page.screenshot({ path: `${ARTIFACTS}configurator_top_level.png` });
        await page.close();
      });
    } finally {
      await browser.close();
      await stranger.shutdown();
      await setup.close();
    }
  },
});
