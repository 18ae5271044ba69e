import assert from "node:assert/strict";
import { startTestServer } from "../_helpers/server.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";

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
      await page.locator('#status[data-status="ready"]').waitFor({ timeout: 10_000 });
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
