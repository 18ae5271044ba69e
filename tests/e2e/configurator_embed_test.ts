import assert from "node:assert/strict";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import {
  dagHashChange,
  modelPixels,
  recordRenders,
  startShop,
  until,
} from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name:
    "e2e - storefront on another origin: custom element mints, draws, re-renders only what changed",
  ...e2e,
  async fn() {
    const setup = await startShop();
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const renders = recordRenders(page);
      await page.goto(`${setup.shop}/`);
      const cfg = page.locator("cad-configurator .cad-configurator");
      await cfg.and(page.locator('[data-token-status="ready"]')).waitFor({ timeout: 30_000 });
      await cfg.and(page.locator('[data-render-status="ready"]')).waitFor({ timeout: 30_000 });
      await page.waitForTimeout(300);
      const first = await cfg.getAttribute("data-dag-hash");
      assert.match(first ?? "", /^[0-9a-f]{64}$/);
      const pixels = await modelPixels(page);
      assert.ok(pixels.drawn > pixels.total * 0.02, `the model covers pixels (${pixels.drawn})`);
      await page.screenshot({ path: `${ARTIFACTS}storefront_element.png` });

      // A person moves the width slider one step with the keyboard.
      const slider = page.locator('cad-configurator [data-param="width"] input[type=range]');
      await slider.focus();
      await slider.press("ArrowRight");
      await dagHashChange(page, first);
      await until(() => renders.length >= 2, "the second render");
      const second = renders[1];
      assert.notEqual(second.dagHash, first);
      const firstMeshes = renders[0].sceneMeshes;
      assert.ok(
        second.sceneMeshes.some((m) => !firstMeshes.includes(m)),
        "the new width gives a new mesh hash",
      );
      assert.deepEqual(
        new Set(second.have),
        new Set(renders[0].meshes),
        "the request lists the meshes the client holds",
      );

      // Colour only: the same meshes, so the answer leaves them all out.
      await page.locator('cad-configurator [data-param="color"] button[data-color="#c0392b"]')
        .click();
      await until(() => renders.length >= 3, "the third render");
      await cfg.and(page.locator('[data-render-status="ready"]')).waitFor({ timeout: 30_000 });
      const third = renders[2];
      assert.equal(third.status, 200);
      assert.deepEqual(third.meshes, [], "no mesh data is downloaded again");
      assert.deepEqual(new Set(third.omitted), new Set(third.sceneMeshes));
      assert.ok(third.have.length >= third.sceneMeshes.length);
      // The viewer holds exactly the scene's geometries: replaced ones were disposed.
      const geometries = await page.evaluate(() =>
        (document.querySelector("cad-configurator") as unknown as {
          view: { geometryCount: number };
        }).view.geometryCount
      );
      assert.equal(geometries, new Set(third.sceneMeshes).size);

      // A typed value the schema refuses shows a message and sends nothing.
      const count = renders.length;
      const box = page.locator('cad-configurator [data-param="width"] input[type=number]');
      await box.fill("500");
      await box.press("Enter");
      const message = page.locator('cad-configurator [data-param="width"] .cad-field__error');
      await message.waitFor();
      assert.equal(await message.textContent(), "Enter a value from 20 to 120 mm.");
      assert.equal(await box.inputValue(), "500", "the typed value stays next to its message");
      await page.waitForTimeout(300);
      assert.equal(renders.length, count, "no request for an invalid value");
      await page.screenshot({ path: `${ARTIFACTS}storefront_element_changed.png` });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

Deno.test({
  name: "e2e - a partner app mounts the Preact SDK module (/sdk/v1/preact.js) with its own hook UI",
  ...e2e,
  async fn() {
    // A page of the partner's own app on origin B, importing the Preact module from the hub.
    const setup = await startShop({ extraPages: { "/app.html": PARTNER_APP } });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${setup.shop}/app.html`);
      await page.locator('#hook[data-token="ready"][data-render="ready"]').waitFor({
        timeout: 30_000,
      });
      assert.equal(await page.locator("#hook").textContent(), "ready / ready / 60");
      await page.waitForTimeout(300);
      const pixels = await modelPixels(page);
      assert.ok(pixels.drawn > pixels.total * 0.02, `drawn (${pixels.drawn})`);
      await page.screenshot({ path: `${ARTIFACTS}partner_preact_app.png` });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

const PARTNER_APP = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<div id="app" style="height:560px"></div>
<script type="module">
  import { ConfiguratorProvider, CONFIGURATOR_CSS, h, render, useRender, useSession, Viewer }
    from "{{HUB_URL}}/sdk/v1/preact.js";
  document.head.append(Object.assign(document.createElement("style"), { textContent: CONFIGURATOR_CSS }));
  function App() {
    const { tokenStatus } = useSession();
    const { status, result, render: draw, project } = useRender();
    if (project && status === "idle") draw({ width: 60 });
    return h("div", { class: "cad-configurator", style: "height:560px" },
      h("p", { id: "hook", "data-token": tokenStatus.state, "data-render": status },
        tokenStatus.state + " / " + status + (result ? " / " + result.values.width : "")),
      h("div", { class: "cad-stage", style: "height:480px" }, h(Viewer, { result, loading: status === "rendering" })));
  }
  render(h(ConfiguratorProvider, { keyId: "{{KEY_ID}}", projectKey: "wall-bracket", hubBaseUrl: "{{HUB_URL}}" }, h(App)),
    document.getElementById("app"));
</script></body></html>`;
