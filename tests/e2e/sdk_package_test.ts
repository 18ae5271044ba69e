/**
 * A partner's first hour with the npm package: `deno task sdk:pack` builds and packs
 * `@cad-configurator/sdk`; a Vite React-TS app (StrictMode) installs the tarball from npm and
 * passes `tsc -b && vite build`; a plain HTML page uses `<cad-configurator>` from the same
 * package. Both are served from a second origin and driven in Chromium against a running hub:
 * the model appears, a slider step renders a new mesh.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { FORM_SYNC_DEADLINE_MS } from "@/lib/client/page_change_sync.ts";
import { packSdk } from "@/packages/sdk/scripts/pack.ts";
import { startTestServer } from "../_helpers/server.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels, recordRenders, type RenderExchange, until } from "./storefront_fixture.ts";
import { elementPage, installViteApp, servePartnerSite, sh } from "./partner_app_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

/** Whether the model on the page's canvas is mostly blue or mostly red. */
async function blueShare(page: Page): Promise<"blue" | "red"> {
  const { red, blue } = await modelPixels(page);
  return blue > red ? "blue" : "red";
}

/** Moves the width slider one step and waits for the render it causes. */
async function stepWidth(page: Page, renders: RenderExchange[]): Promise<RenderExchange> {
  const before = renders.length;
  const slider = page.locator('[data-param="width"] input[type=range]');
  await slider.focus();
  await slider.press("ArrowRight");
  await until(() => renders.length > before && renders.at(-1)!.status === 200, "the new render");
  return renders.at(-1)!;
}

Deno.test({
  name: "e2e - partner apps built from the npm tarball: Vite React-TS (StrictMode) and plain HTML",
  ...e2e,
  async fn(t) {
    const pack = await packSdk();
    console.log(
      `@cad-configurator/sdk tarball: ${pack.size} bytes (gzip), ${pack.unpackedSize} bytes ` +
        `unpacked, ${pack.files} files`,
    );
    assert.ok(pack.size > 0);

    const hub = await startTestServer({ env: { SEED_DEMO: "true" } });
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const origin = `http://127.0.0.1:${port}`;
    const { record } = await createSdkKey(hub.deps.kv, {
      partnerId: hub.demo!.partnerId,
      label: "npm partner apps",
      allowedOrigins: [origin],
      allowedProjects: hub.demo!.projects,
      budget: null,
    });

    const app = await installViteApp(pack.tarball);
    const build = await sh("npm", ["run", "build"], app, {
      VITE_HUB_URL: hub.url,
      VITE_KEY_ID: record.keyId,
    });
    const buildLog = build.stdout + build.stderr;
    assert.doesNotMatch(buildLog, /error TS\d+/, buildLog);
    assert.match(buildLog, /built in/, buildLog);

    await t.step("the React entry imports and renders on the server (no window)", async () => {
      const ssr = await sh("node", [
        "--input-type=module",
        "-e",
        `const { createElement } = await import("react");
         const { renderToString } = await import("react-dom/server");
         const sdk = await import("@cad-configurator/sdk/react");
         process.stdout.write(renderToString(createElement(sdk.Configurator,
           { keyId: "k", projectKey: "wall-bracket", hubBaseUrl: "https://hub.invalid" })));`,
      ], app);
      assert.match(ssr.stdout, /class="cad-configurator"[^>]*data-token-status="loading"/);
    });

    await t.step(
      "the React form says when the design limited a value, as the Preact one",
      async () => {
        const schema = {
          version: 1,
          parameters: [
            { name: "teeth", kind: "Int", label: "Teeth", default: 24, minimum: 8, maximum: 80 },
            {
              name: "hub",
              kind: "Float",
              label: "Hub diameter",
              unit: "mm",
              default: 20,
              minimum: 10,
              maximum: 60,
            },
          ],
        };
        const effective = { hub: { value: 43, requested: 60, bound: "max", by: ["teeth"] } };
        const ssr = await sh("node", [
          "--input-type=module",
          "-e",
          `const { createElement } = await import("react");
         const { renderToString } = await import("react-dom/server");
         const sdk = await import("@cad-configurator/sdk/react");
         process.stdout.write(renderToString(createElement(sdk.ParameterForm, {
           schema: ${JSON.stringify(schema)}, values: { hub: 60 }, onChange() {},
           effective: ${JSON.stringify(effective)} })));`,
        ], app);
        assert.match(ssr.stdout, /data-effective-note="">.*43 mm.*limited by Teeth: max 43 mm/);
        assert.match(ssr.stdout, /aria-live="polite"[^>]*>Hub diameter: the model uses 43 mm/);
      },
    );

    const site = servePartnerSite({
      port,
      viteDist: join(app, "dist"),
      elementHtml: await elementPage(hub.url, record.keyId),
      elementJs: join(app, "node_modules/@cad-configurator/sdk/dist/element.js"),
    });
    const browser = await launchBrowser();
    try {
      await t.step(
        "Vite React-TS app: the model appears, a slider step renders a new mesh",
        async () => {
          const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          const renders = recordRenders(page);
          await page.goto(`${origin}/`);
          const cfg = page.locator(".cad-configurator");
          await cfg.and(page.locator('[data-token-status="ready"]')).waitFor({ timeout: 30_000 });
          await cfg.and(page.locator('[data-render-status="ready"]')).waitFor({ timeout: 30_000 });
          await until(() => renders.some((r) => r.status === 200), "the first render");
          await page.waitForTimeout(300);
          const pixels = await modelPixels(page);
          assert.ok(
            pixels.drawn > pixels.total * 0.02,
            `the model covers pixels (${pixels.drawn})`,
          );
          // StrictMode mounted everything twice: one stylesheet, one live canvas.
          assert.equal(await page.locator("style[data-cad-configurator-styles]").count(), 1);
          assert.equal(await page.locator("canvas").count(), 1);
          await page.screenshot({ path: `${ARTIFACTS}npm_react_app.png` });

          const first = renders.findLast((r) => r.status === 200)!;
          const next = await stepWidth(page, renders);
          assert.notEqual(next.dagHash, first.dagHash);
          assert.ok(
            next.sceneMeshes.some((m) => !first.sceneMeshes.includes(m)),
            "the new width gives a new mesh hash",
          );
          await page.locator(`.cad-configurator[data-dag-hash="${next.dagHash}"]`).waitFor();
          await page.locator(`#summary[data-dag-hash="${next.dagHash}"]`).waitFor();
          const seen = await page.evaluate(() => ({
            events: (window as unknown as { partnerEvents: string[] }).partnerEvents,
            renders: (window as unknown as { partnerRenders: Array<{ dagHash: string }> })
              .partnerRenders,
          }));
          for (const type of ["status", "ready", "rendered", "change"]) {
            assert.ok(seen.events.includes(type), `the app saw a ${type} event`);
          }
          assert.equal(seen.renders.at(-1)?.dagHash, next.dagHash, "the rendered event's scene");
          await page.screenshot({ path: `${ARTIFACTS}npm_react_app_changed.png` });
          await page.setViewportSize({ width: 390, height: 844 });
          await page.waitForTimeout(300);
          await page.screenshot({ path: `${ARTIFACTS}npm_react_app_phone.png`, fullPage: true });
          assert.deepEqual(errors, []);
          await page.close();
        },
      );

      await t.step("React ref: share link, snapshot, a page change with its model", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        const renders = recordRenders(page);
        await page.goto(`${origin}/`);
        await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({
          timeout: 30_000,
        });
        await until(() => renders.some((r) => r.status === 200), "the first render");
        const changed = await stepWidth(page, renders);
        await page.locator(`.cad-configurator[data-dag-hash="${changed.dagHash}"]`).waitFor();
        const out = await page.evaluate(async () => {
          const cad = (globalThis as unknown as {
            cad: {
              snapshot(o: unknown): Promise<Blob>;
              getShareUrl(): string | null;
              getValues(): Record<string, unknown>;
            };
          }).cad;
          const png = await cad.snapshot({ width: 256, height: 192 });
          const bitmap = await createImageBitmap(png);
          const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
          const ctx = canvas.getContext("2d")!;
          ctx.drawImage(bitmap, 0, 0);
          const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
          let drawn = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (data[i] + data[i + 1] + data[i + 2] < 3 * 255 - 30) drawn++;
          }
          return {
            url: cad.getShareUrl(),
            values: cad.getValues(),
            type: png.type,
            width: bitmap.width,
            height: bitmap.height,
            drawn: drawn / (bitmap.width * bitmap.height),
          };
        });
        assert.equal(out.type, "image/png");
        assert.deepEqual([out.width, out.height], [256, 192]);
        assert.ok(out.drawn > 0.05, `the model is in the snapshot (${out.drawn})`);
        assert.match(out.url ?? "", /\?cad=1~wall-bracket~\d+~width~41$/);
        const again = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        again.on("pageerror", (e) => errors.push(String(e)));
        await again.goto(out.url!);
        await again.locator(`.cad-configurator[data-dag-hash="${changed.dagHash}"]`).waitFor({
          timeout: 30_000,
        });
        assert.deepEqual(
          await again.evaluate(() =>
            (globalThis as unknown as { partnerReady: unknown }).partnerReady
          ),
          out.values,
          "the link restores the exact values",
        );
        // A change from the page reaches the form with its model: no text in the configurator
        // changes before the answer (or the form's deadline), and the field then shows it.
        const synced = await page.evaluate(async (deadline) => {
          const w = globalThis as unknown as {
            cad: { setParameters(v: Record<string, unknown>): void };
            partnerRenders: unknown[];
          };
          const root = document.querySelector(".cad-configurator")!;
          const field = () =>
            root.querySelector('input[type="range"][name="width"]')!.closest(".cad-field")!
              .querySelector(".cad-field__value")?.textContent;
          const texts: number[] = [];
          const observer = new MutationObserver((records) => {
            for (const r of records) if (r.type !== "attributes") texts.push(performance.now());
          });
          observer.observe(root, { subtree: true, childList: true, characterData: true });
          const before = w.partnerRenders.length;
          performance.clearResourceTimings();
          const start = performance.now();
          w.cad.setParameters({ width: 45 });
          while (w.partnerRenders.length === before) await new Promise((r) => setTimeout(r, 1));
          observer.disconnect();
          const answer = (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
            .find((r) => r.name.endsWith("/render"))!.responseEnd;
          const shown = await new Promise((r) => requestAnimationFrame(() => r(field())));
          return {
            textsBefore: texts.filter((at) => at < Math.min(answer, start + deadline)).length,
            shown,
          };
        }, FORM_SYNC_DEADLINE_MS);
        assert.deepEqual(synced, { textsBefore: 0, shown: "45 mm" });
        assert.deepEqual(errors, []);
        await again.close();
        await page.close();
      });

      await t.step("React: a color pick is drawn before its render answers", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${origin}/`);
        await page.locator('.cad-configurator[data-render-status="ready"]').waitFor({
          timeout: 30_000,
        });
        await page.waitForTimeout(300);
        assert.equal(await blueShare(page), "blue", "the default #4a6fa5 is blue");
        const released = Promise.withResolvers<void>();
        await page.route("**/render", async (route) => {
          await released.promise;
          await route.continue();
        });
        const hash = await page.locator(".cad-configurator").getAttribute("data-dag-hash");
        await page.evaluate(() =>
          (globalThis as unknown as { cad: { setParameters(v: Record<string, unknown>): void } })
            .cad.setParameters({ color: "#c0392b" })
        );
        await until(async () => (await blueShare(page)) === "red", "the picked red on the model");
        assert.equal(await page.locator(".cad-configurator").getAttribute("data-dag-hash"), hash);
        released.resolve();
        await page.locator('.cad-configurator[data-render-status="ready"]').and(
          page.locator(`.cad-configurator:not([data-dag-hash="${hash}"])`),
        ).waitFor({ timeout: 30_000 });
        assert.equal(await blueShare(page), "red", "the kernel's answer keeps it");
        await page.screenshot({ path: `${ARTIFACTS}npm_react_app_color.png` });
        assert.deepEqual(errors, []);
        await page.close();
      });

      await t.step("plain HTML page with <cad-configurator> from the package", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        const renders = recordRenders(page);
        await page.goto(`${origin}/plain.html`);
        const cfg = page.locator("cad-configurator .cad-configurator");
        await cfg.and(page.locator('[data-render-status="ready"]')).waitFor({ timeout: 30_000 });
        await until(() => renders.some((r) => r.status === 200), "the first render");
        await page.waitForTimeout(300);
        const pixels = await modelPixels(page);
        assert.ok(pixels.drawn > pixels.total * 0.02, `the model covers pixels (${pixels.drawn})`);
        await page.screenshot({ path: `${ARTIFACTS}npm_element_page.png` });
        const first = renders.findLast((r) => r.status === 200)!;
        const next = await stepWidth(page, renders);
        assert.notEqual(next.dagHash, first.dagHash);
        assert.ok(next.sceneMeshes.some((m) => !first.sceneMeshes.includes(m)), "a new mesh");
        await until(
          () =>
            page.evaluate(
              (hash) =>
                (window as unknown as { partnerRenders: Array<{ dagHash: string }> })
                  .partnerRenders.some((r) => r.dagHash === hash),
              next.dagHash,
            ),
          "the cad-rendered event of the new scene",
        );
        await page.screenshot({ path: `${ARTIFACTS}npm_element_page_changed.png` });
        assert.deepEqual(errors, []);
        await page.close();
      });
    } finally {
      await browser.close();
      await site.shutdown();
      await hub.close();
    }
  },
});
