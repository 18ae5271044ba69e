/**
 * The settings end to end in Chromium, as a partner would do it: sign up, create a project from
 * the wall-bracket example, create a key for a storefront on another origin (a second loopback
 * server), copy the custom-element and iframe snippets from the project page, paste them into
 * storefront pages, and see the model drawn there. Then roll the secret (the old one still mints
 * in the server flow during the grace period, and no longer after it or with no grace), revoke the
 * key (the storefront's configurator shows the refusal), and check that the usage page counted
 * every mint and render the browser and the server flow made. Screenshots go to
 * test-artifacts/settings_*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { mint, startTestServer } from "../_helpers/server.ts";
import { rid } from "../_helpers/redis.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels } from "./storefront_fixture.ts";

const EXAMPLE = new URL("../../examples/projects/wall-bracket/", import.meta.url).pathname;

/** A storefront page with a pasted snippet, as a partner's CMS would serve it. */
function storefrontPage(title: string, snippet: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;color:#1d2430;background:#fafafa}
header{padding:16px 32px;background:#1d2430;color:#fff}header h1{margin:0;font-size:22px}
main{display:grid;grid-template-columns:1fr 260px;gap:24px;padding:24px 32px}
cad-configurator{display:block;height:640px}
aside{background:#fff;border:1px solid #dde;border-radius:8px;padding:16px;height:fit-content}
.price{font-size:28px;font-weight:600;margin:0 0 8px}
</style></head>
<body><header><h1>Bracket Shop</h1></header>
<main><section><h2>${title}</h2>
${snippet}
</section><aside><p class="price">€14.90</p><p>Printed to your measurements.</p></aside></main>
</body></html>`;
}

/** Every mint and render answer the browser saw, by outcome (pages and frames of a context). */
interface Observed {
  mints: number[];
  renders: number[];
}

function observe(page: Page, seen: Observed): void {
  page.on("response", (res) => {
    if (res.request().method() !== "POST") return;
    const path = new URL(res.url()).pathname;
    if (
      path === "/api/v1/sdk/session-tokens" || /^\/configurator\/[^/]+\/session-token$/.test(path)
    ) {
      seen.mints.push(res.status());
    } else if (path.startsWith("/v1/kernels/")) {
      seen.renders.push(res.status());
    }
  });
}

/** Waits for the configurator (custom element or hosted page) to draw, and checks the pixels. */
async function drawn(target: Page | import("playwright-core").Frame, what: string): Promise<void> {
  await target.locator('.cad-configurator[data-render-status="ready"]').waitFor({
    timeout: 60_000,
  });
  await target.waitForTimeout(300);
  const { drawn, total } = await modelPixels(target);
  assert.ok(drawn > total * 0.02, `${what}: the model covers pixels (${drawn} of ${total})`);
}

Deno.test({
  name:
    "e2e - settings: sign up, project, key, pasted snippets draw on the storefront, roll, revoke, usage",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    // The hub's clock can be moved forward to pass a grace period (the browser's stays).
    let skewMs = 0;
    const server = await startTestServer({ clock: () => Date.now() + skewMs });
    const hub = server.url.replace("localhost", "127.0.0.1");
    const pages: Record<string, string> = {};
    const storefront = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      (req) => {
        const html = pages[new URL(req.url).pathname];
        return html
          ? new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })
          : new Response("not found", { status: 404 });
      },
    );
    const storeOrigin = `http://127.0.0.1:${storefront.addr.port}`;
    const browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: hub });
    const page = await context.newPage();
    const seen: Observed = { mints: [], renders: [] };
    const backend: Observed = { mints: [], renders: [] };
    const errors: string[] = [];
    const shot = (name: string, p: Page = page) =>
      p.screenshot({ path: `${ARTIFACTS}settings_${name}.png`, fullPage: true });
    const slug = `wall-bracket-${rid(3)}`;
    let keyId = "";
    let firstKey = "";
    let store: Page | undefined;
    /** A server-flow mint (the partner's backend), counted like the browser's. */
    const serverMint = async (key: string) => {
      const res = await mint(hub, { projectId: slug, origin: storeOrigin }, {
        authorization: `Bearer ${key}`,
      });
      backend.mints.push(res.status);
      const body = await res.json();
      return { status: res.status, code: body.code as string | undefined };
    };
    try {
      await t.step("sign up", async () => {
        await page.goto(`${hub}/auth/signup`);
        await shot("01_signup");
        await page.fill('input[name="partnerName"]', "Bracket Shop");
        await page.fill('input[name="email"]', `owner-${rid()}@bracket.example`);
        await page.fill('input[name="password"]', "correct horse battery");
        await page.click('button[type="submit"]');
        // A new partner lands on the projects page (the starter gallery).
        await page.waitForURL(`${hub}/settings/projects`);
        assert.match(await page.locator("h1").textContent() ?? "", /Projects/);
      });

      await t.step("create a project from the wall-bracket example", async () => {
        await page.click('nav a[href="/settings/projects"]');
        await page.fill('input[name="title"]', "Wall bracket");
        await page.fill('input[name="slug"]', slug);
        await page.click('form[action="/settings/projects"] button[type="submit"]');
        await page.waitForURL(`${hub}/settings/projects/${slug}`);
        // The files swapped: refused with the file and the JSON pointer of what is wrong.
        await page.setInputFiles('input[name="template"]', `${EXAMPLE}parameters.schema.json`);
        await page.setInputFiles('input[name="schema"]', `${EXAMPLE}template.dag.json`);
        await page.click('form[enctype="multipart/form-data"] button[type="submit"]');
        await page.locator("#publish-error").waitFor();
        assert.match(await page.locator("#publish-error").textContent() ?? "", /\.json/);
        await shot("02a_publish_error");
        await page.setInputFiles('input[name="template"]', `${EXAMPLE}template.dag.json`);
        await page.setInputFiles('input[name="schema"]', `${EXAMPLE}parameters.schema.json`);
        await page.click('form[enctype="multipart/form-data"] button[type="submit"]');
        await page.waitForURL(/published=1/);
        assert.match(await page.locator(".notice").textContent() ?? "", /Published version 1/);
        await page.click('button:has-text("Render preview")');
        await page.locator("#preview").waitFor();
        const tris = Number(
          (await page.locator("#preview-triangles").textContent())!.replaceAll(",", ""),
        );
        assert.ok(tris > 100, `the preview has triangles (${tris})`);
        await shot("02_project");
      });

      await t.step(
        "create a key for the storefront origin; the plaintext is shown once",
        async () => {
          await page.goto(`${hub}/settings/keys/new`);
          await page.fill('input[name="label"]', "Storefront");
          await page.fill('textarea[name="origins"]', `${storeOrigin}/`);
          await page.check(`input[name="projects"][value="${slug}"]`);
          await page.click('button:has-text("Create key")');
          // A trailing slash is refused with what to enter instead.
          const error = await page.locator(".error").textContent() ?? "";
          assert.match(error, /trailing slash|path/);
          assert.ok(error.includes(storeOrigin), error);
          await shot("03_origin_error");
          await page.fill('textarea[name="origins"]', storeOrigin);
          await page.click('button:has-text("Create key")');
          await page.locator("#key-plaintext").waitFor();
          firstKey = (await page.locator("#key-plaintext").textContent())!;
          assert.match(firstKey, /^sdk_k[a-z2-7]{20}_[a-z2-7]{39}$/);
          keyId = firstKey.split("_")[1];
          await page.click('button[data-copy="snippet-browser"]');
          const copied = await page.evaluate(() => navigator.clipboard.readText());
          assert.ok(copied.includes(`keyId: "${keyId}"`), copied);
          assert.ok(copied.includes(`projectId: "${slug}"`));
          await shot("04_key_created");
          // Shown once: the list and the key page never contain the secret.
          await page.goto(`${hub}/settings/keys`);
          assert.ok(!(await page.content()).includes(firstKey.split("_")[2]));
        },
      );

      await t.step("copy the embed snippets from the project page", async () => {
        await page.goto(`${hub}/settings/projects/${slug}`);
        await page.locator("#embed-element").scrollIntoViewIfNeeded();
        await shot("05a_embed_snippets");
        const copy = async (id: string) => {
          await page.click(`button[data-copy="${id}"]`);
          const text = await page.evaluate(() => navigator.clipboard.readText());
          assert.equal(text, await page.locator(`#${id}`).textContent(), "copied as shown");
          return text;
        };
        const element = await copy("embed-element");
        const iframe = await copy("embed-iframe");
        assert.ok(element.includes(`key-id="${keyId}"`), element);
        assert.ok(element.includes(`hub-url="${hub}"`), element);
        assert.ok(element.includes(`kernel-url="${hub}"`), element);
        assert.ok(iframe.includes(`${hub}/configurator/${slug}?key=${keyId}`), iframe);
        pages["/bracket"] = storefrontPage("Wall bracket (custom element)", element);
        pages["/bracket-iframe"] = storefrontPage("Wall bracket (iframe)", iframe);
      });

      await t.step(
        "the pasted custom element draws the model on the storefront origin",
        async () => {
          store = await context.newPage();
          observe(store, seen);
          store.on("pageerror", (e) => errors.push(String(e)));
          await store.goto(`${storeOrigin}/bracket`);
          await drawn(store, "custom element");
          assert.equal(
            await store.locator("cad-configurator").getAttribute("data-token-status"),
            "ready",
          );
          await shot("05_storefront_element", store);
        },
      );

      await t.step("the pasted iframe draws the model on the storefront origin", async () => {
        const framed = await context.newPage();
        observe(framed, seen);
        framed.on("pageerror", (e) => errors.push(String(e)));
        await framed.goto(`${storeOrigin}/bracket-iframe`);
        await framed.locator("iframe").waitFor();
        const frame = await (await framed.locator("iframe").elementHandle())!.contentFrame();
        assert.ok(frame, "the iframe has a document");
        await drawn(frame, "iframe");
        assert.equal(new URL(frame.url()).origin, hub, "the hosted page is the hub's");
        await shot("05b_storefront_iframe", framed);
        await framed.close();
      });

      await t.step("the origin tester agrees", async () => {
        await page.goto(`${hub}/settings/keys/${keyId}`);
        await page.fill('input[name="test"]', `${storeOrigin}/products/bracket`);
        await page.click('button:has-text("Test")');
        await page.locator("#origin-test-result").waitFor();
        assert.equal(
          await page.locator("#origin-test-result").getAttribute("data-matches"),
          "true",
        );
        await shot("06_key_page");
      });

      await t.step("roll the secret: the old one mints during grace, not after it", async () => {
        await page.selectOption('select[name="grace"]', "3600");
        await page.click('button:has-text("Roll secret")');
        await page.locator("#key-plaintext").waitFor();
        const rolled = (await page.locator("#key-plaintext").textContent())!;
        assert.notEqual(rolled, firstKey);
        assert.equal(rolled.split("_")[1], keyId);
        await shot("07_rolled");
        assert.equal((await serverMint(firstKey)).status, 200, "old secret during grace");
        assert.equal((await serverMint(rolled)).status, 200, "new secret");
        // An hour and a second later on the hub's clock, the old secret is refused.
        skewMs = 3601_000;
        try {
          assert.deepEqual(await serverMint(firstKey), {
            status: 401,
            code: "invalid_credentials",
          });
          assert.equal((await serverMint(rolled)).status, 200, "the new secret still mints");
        } finally {
          skewMs = 0;
        }
        // Rolled again with no grace: the previous secret stops at once.
        await page.goto(`${hub}/settings/keys/${keyId}`);
        await page.selectOption('select[name="grace"]', "0");
        await page.click('button:has-text("Roll secret")');
        await page.locator("#key-plaintext").waitFor();
        const third = (await page.locator("#key-plaintext").textContent())!;
        assert.deepEqual(await serverMint(rolled), { status: 401, code: "invalid_credentials" });
        assert.equal((await serverMint(third)).status, 200);
        // The browser flow never needed the secret: the storefront still renders.
        await store!.reload();
        await drawn(store!, "custom element after the rolls");
      });

      await t.step("revoke: the storefront's configurator shows the refusal", async () => {
        await page.goto(`${hub}/settings/keys/${keyId}`);
        await page.click('button:has-text("Revoke key")');
        await page.waitForURL(`${hub}/settings/keys?done=revoked`);
        assert.match(
          await page.locator(`tr[data-key-id="${keyId}"]`).textContent() ?? "",
          /revoked/,
        );
        await shot("08_revoked");
        const cfg = store!.locator("cad-configurator .cad-configurator");
        // The open page changes a value: its token is refused at render time.
        await store!.fill("cad-configurator #cad-p-width", "70");
        await store!.press("cad-configurator #cad-p-width", "Enter");
        await store!.locator('cad-configurator [data-error-code="token_revoked"]').waitFor({
          timeout: 15_000,
        });
        await shot("09a_storefront_token_revoked", store);
        // A visitor who comes later: the mint is refused, and the configurator says why.
        const before = seen.mints.length;
        await store!.reload();
        await store!.locator('cad-configurator .cad-configurator[data-error-code="key_revoked"]')
          .waitFor({ timeout: 15_000 });
        const alert = await store!.locator("cad-configurator [role=alert]").first().textContent();
        assert.match(alert ?? "", /revoked/i, alert ?? "");
        assert.equal(await cfg.getAttribute("data-token-status"), "error");
        await shot("09_storefront_key_revoked", store);
        // The iframe page is refused by the hub with the problem code.
        const framed = await context.newPage();
        await framed.goto(`${storeOrigin}/bracket-iframe`);
        const frame = await (await framed.locator("iframe").elementHandle())!.contentFrame();
        await frame!.locator("body").waitFor();
        assert.match(await frame!.locator("body").textContent() ?? "", /key_revoked/);
        await shot("09b_storefront_iframe_revoked", framed);
        await framed.close();
        // The page asked once and took the answer: no retries of a revoked key's mint.
        assert.deepEqual(seen.mints.slice(before), [401]);
        // The server flow is refused as well.
        assert.equal((await serverMint(firstKey)).code, "key_revoked");
      });

      await t.step("the usage page counted what happened", async () => {
        const ok = (xs: number[]) => xs.filter((s) => s === 200).length;
        const bad = (xs: number[]) => xs.filter((s) => s !== 200).length;
        const mintsOk = ok(seen.mints) + ok(backend.mints);
        const mintsDenied = bad(seen.mints) + bad(backend.mints);
        // Both embeds minted and rendered; the browser saw the refusals after the revocation.
        assert.ok(ok(seen.mints) >= 3, `browser mints: ${seen.mints}`);
        assert.ok(ok(seen.renders) >= 3, `browser renders: ${seen.renders}`);
        assert.ok(bad(seen.renders) >= 1, `refused renders: ${seen.renders}`);
        await page.goto(`${hub}/settings/usage/${keyId}`);
        const stat = async (name: string) =>
          Number((await page.locator(`[data-stat="${name}"] b`).textContent())?.trim());
        assert.equal(await stat("mints-ok"), mintsOk, "successful mints");
        assert.equal(await stat("mints-denied"), mintsDenied, "refused mints");
        assert.equal(await stat("renders"), ok(seen.renders), "renders");
        assert.equal(await stat("renders-denied"), bad(seen.renders), "refused renders");
        const text = await page.locator("body").textContent() ?? "";
        assert.ok(text.includes(storeOrigin), "mints are listed under the storefront's origin");
        assert.match(text, /key_revoked/);
        assert.match(text, /invalid_credentials/);
        await shot("10_usage");
        await page.goto(`${hub}/settings/audit`);
        const audit = await page.locator("#audit").textContent() ?? "";
        for (
          const action of [
            "project.create",
            "project.publish",
            "key.create",
            "key.roll",
            "key.revoke",
          ]
        ) {
          assert.ok(audit.includes(action), `audit shows ${action}`);
        }
        await shot("11_audit");
        await page.goto(`${hub}/settings/usage`);
        assert.equal(
          Number(
            (await page.locator(`tr[data-key-id="${keyId}"] td.num`).first().textContent())?.trim(),
          ),
          mintsOk,
        );
        await shot("12_usage_overview");
        await page.goto(`${hub}/settings/members`);
        await shot("13_members");
        await page.click('button:has-text("Sign out")');
        await page.waitForURL(`${hub}/auth/signin`);
        await shot("14_signed_out");
        assert.deepEqual(errors, [], "no page errors on the storefront");
      });
    } finally {
      await browser.close();
      await storefront.shutdown();
      await server.close();
    }
  },
});

Deno.test({
  name: "e2e - settings work without JavaScript: sign up, project, key shown once",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startTestServer();
    const hub = server.url.replace("localhost", "127.0.0.1");
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${hub}/auth/signup`);
      await page.fill('input[name="partnerName"]', "No Script Co");
      await page.fill('input[name="email"]', `nojs-${rid()}@shop.example`);
      await page.fill('input[name="password"]', "correct horse battery");
      await page.click('button[type="submit"]');
      await page.waitForURL(`${hub}/settings/projects`);
      await page.fill('input[name="title"]', "Plain");
      await page.fill('input[name="slug"]', `plain-${rid(3)}`);
      await page.click('form[action="/settings/projects"] button[type="submit"]');
      await page.waitForURL(/\/settings\/projects\/plain-/);
      await page.goto(`${hub}/settings/keys/new`);
      await page.fill('input[name="label"]', "No JS");
      await page.fill('textarea[name="origins"]', "https://shop.example");
      await page.click('button:has-text("Create key")');
      const key = await page.locator("#key-plaintext").textContent();
      assert.match(key ?? "", /^sdk_k[a-z2-7]{20}_[a-z2-7]{39}$/);
      assert.equal(await page.locator('button[data-copy="key-plaintext"]').isHidden(), true);
      await page.screenshot({ path: `${ARTIFACTS}settings_15_no_javascript.png`, fullPage: true });
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
