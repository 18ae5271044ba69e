/**
 * The settings end to end in Chromium: a partner signs up, creates a project from the
 * wall-bracket example, creates a key for a storefront on another origin, copies the snippet,
 * and the storefront mints (browser flow) and renders; then the secret is rolled (the old one
 * still mints during grace), the key revoked (rendering stops), and the usage page shows the
 * counts. Screenshots go to test-artifacts/settings_*.png.
 */
import assert from "node:assert/strict";
import { validateParameterSchema } from "@/lib/kernel/parameter_schema.ts";
import { substitute } from "@/lib/kernel/substitute.ts";
import type { Dag } from "@/lib/kernel/dag_types.ts";
import { mint, startTestServer } from "../_helpers/server.ts";
import { rid } from "../_helpers/redis.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";

const EXAMPLE = new URL("../../examples/projects/wall-bracket/", import.meta.url).pathname;

/** The storefront: a page on its own origin that mints with the keyId and renders. */
function storefrontPage(hub: string, keyId: string, project: string, dag: Dag): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Storefront</title>
<style>body{font-family:system-ui;margin:40px}#out{font-size:18px}</style></head>
<body><h1>Storefront</h1><p id="out" data-state="working">working…</p>
<button id="again">Render again</button>
<script type="module">
const hub = ${JSON.stringify(hub)};
const dag = ${JSON.stringify(dag)};
const out = document.getElementById("out");
let token = null;
async function render() {
  const res = await fetch(hub + "/v1/kernels/manifold/render", {
    method: "POST",
    headers: { authorization: "Bearer " + token, "content-type": "application/json" },
    body: JSON.stringify({ dag }),
  });
  const body = await res.json();
  if (!res.ok) { out.dataset.state = "refused"; out.textContent = "render refused: " + body.code; return; }
  out.dataset.state = "rendered";
  out.textContent = "rendered " + body.scene.triangles + " triangles (cache " + body.cache + ")";
}
try {
  const res = await fetch(hub + "/api/v1/sdk/session-tokens", {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ keyId: ${JSON.stringify(keyId)}, projectId: ${
    JSON.stringify(project)
  } }),
  });
  token = (await res.json()).token;
  await render();
} catch (err) { out.dataset.state = "blocked"; out.textContent = "blocked: " + err.name; }
document.getElementById("again").onclick = () => render();
</script></body></html>`;
}

Deno.test({
  name:
    "e2e - settings: sign up, project, key for a storefront, mint and render, roll, revoke, usage",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startTestServer();
    const hub = server.url.replace("localhost", "127.0.0.1");
    let storefrontHtml = "<p>not ready</p>";
    const storefront = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      () => new Response(storefrontHtml, { headers: { "content-type": "text/html" } }),
    );
    const storeOrigin = `http://127.0.0.1:${storefront.addr.port}`;
    const browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: hub });
    const page = await context.newPage();
    const shot = (name: string) =>
      page.screenshot({ path: `${ARTIFACTS}settings_${name}.png`, fullPage: true });
    const slug = `wall-bracket-${rid(3)}`;
    let keyId = "";
    let firstKey = "";
    try {
      await t.step("sign up", async () => {
        await page.goto(`${hub}/auth/signup`);
        await shot("01_signup");
        await page.fill('input[name="partnerName"]', "Bracket Shop");
        await page.fill('input[name="email"]', `owner-${rid()}@bracket.example`);
        await page.fill('input[name="password"]', "correct horse battery");
        await page.click('button[type="submit"]');
        await page.waitForURL(`${hub}/settings/keys`);
        assert.match(await page.locator("h1").textContent() ?? "", /SDK API keys/);
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

      await t.step("the storefront origin mints and renders", async () => {
        const template = JSON.parse(await Deno.readTextFile(`${EXAMPLE}template.dag.json`));
        const schema = validateParameterSchema(
          JSON.parse(await Deno.readTextFile(`${EXAMPLE}parameters.schema.json`)),
        );
        storefrontHtml = storefrontPage(
          hub,
          keyId,
          slug,
          substitute(template, schema, { width: 60 }),
        );
        await page.goto(`${storeOrigin}/`);
        await page.locator('#out[data-state="rendered"]').waitFor({ timeout: 30_000 });
        assert.match(await page.locator("#out").textContent() ?? "", /^rendered \d+ triangles/);
        await shot("05_storefront_rendered");
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

      await t.step("roll the secret: the old one still mints during grace", async () => {
        await page.selectOption('select[name="grace"]', "3600");
        await page.click('button:has-text("Roll secret")');
        await page.locator("#key-plaintext").waitFor();
        const rolled = (await page.locator("#key-plaintext").textContent())!;
        assert.notEqual(rolled, firstKey);
        assert.equal(rolled.split("_")[1], keyId);
        await shot("07_rolled");
        for (const key of [firstKey, rolled]) {
          const res = await mint(hub, { projectId: slug, origin: storeOrigin }, {
            authorization: `Bearer ${key}`,
          });
          assert.equal(res.status, 200, `${key === firstKey ? "old" : "new"} secret mints`);
          await res.body?.cancel();
        }
      });

      await t.step("revoke: the storefront's token stops rendering", async () => {
        await page.goto(`${storeOrigin}/`);
        await page.locator('#out[data-state="rendered"]').waitFor({ timeout: 30_000 });
        const store = page;
        const admin = await context.newPage();
        await admin.goto(`${hub}/settings/keys/${keyId}`);
        await admin.click('button:has-text("Revoke key")');
        await admin.waitForURL(`${hub}/settings/keys?done=revoked`);
        assert.match(
          await admin.locator(`tr[data-key-id="${keyId}"]`).textContent() ?? "",
          /revoked/,
        );
        await admin.screenshot({ path: `${ARTIFACTS}settings_08_revoked.png`, fullPage: true });
        await store.click("#again");
        await store.locator('#out[data-state="refused"]').waitFor({ timeout: 10_000 });
        assert.equal(await store.locator("#out").textContent(), "render refused: token_revoked");
        await shot("09_storefront_refused");
        await admin.close();
      });

      await t.step("the usage page counted what happened", async () => {
        await page.goto(`${hub}/settings/usage/${keyId}`);
        const stat = async (name: string) =>
          (await page.locator(`[data-stat="${name}"] b`).textContent())?.trim();
        // Two storefront mints (browser flow) + two server-flow mints after the roll.
        assert.equal(await stat("mints-ok"), "4");
        // Two storefront renders, then one refused after revocation.
        assert.equal(await stat("renders"), "2");
        assert.equal(await stat("renders-denied"), "1");
        assert.match(
          await page.locator("body").textContent() ?? "",
          new RegExp(storeOrigin.replaceAll(".", "\\.")),
        );
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
          (await page.locator(`tr[data-key-id="${keyId}"] td.num`).first().textContent())?.trim(),
          "4",
        );
        await shot("12_usage_overview");
        await page.goto(`${hub}/settings/members`);
        await shot("13_members");
        await page.click('button:has-text("Sign out")');
        await page.waitForURL(`${hub}/auth/signin`);
        await shot("14_signed_out");
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
      await page.waitForURL(`${hub}/settings/keys`);
      await page.goto(`${hub}/settings/projects`);
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
