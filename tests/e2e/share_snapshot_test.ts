/**
 * Issue 14's share link and cart snapshot as a shopper and a storefront use them: a changed
 * configuration becomes a link, the link opens the same values drawn the same, and the snapshot
 * PNG (element and iframe API) is a real image of the model, the shopper's camera untouched.
 */
import assert from "node:assert/strict";
import type { Frame, Page } from "playwright-core";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { formatViolations, runAxe } from "./axe.ts";
import { dagHashChange, modelPixels, startShop, until } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

const ELEMENT_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Bracket</title>
<script type="module" src="{{HUB_URL}}/sdk/v1/embed.js"></script></head>
<body><main><h1>Bracket</h1>
<cad-configurator id="cfg" key-id="{{KEY_ID}}" project="wall-bracket" hub-url="{{HUB_URL}}"
  style="display:block;height:640px"></cad-configurator></main>
<script>
  const cfg = document.getElementById("cfg");
  cfg.addEventListener("cad-ready", (e) => { window.readyValues = e.detail.values; });
  cfg.addEventListener("cad-change", (e) => { window.lastValues = e.detail.values; });
</script></body></html>`;

const FRAME_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<iframe id="frame" title="Configure your bracket" style="width:1000px;height:640px;border:0"></iframe>
<script>
  const HUB = "{{HUB_URL}}";
  const frame = document.getElementById("frame");
  // The storefront forwards its own cad parameter to the hosted configurator.
  const src = new URL(HUB + "/configurator/wall-bracket");
  src.searchParams.set("key", "{{KEY_ID}}");
  const cad = new URLSearchParams(location.search).get("cad");
  if (cad) src.searchParams.set("cad", cad);
  frame.src = src.href;
  window.cadEvents = [];
  window.addEventListener("message", (e) => {
    if (e.origin !== HUB || e.source !== frame.contentWindow) return;
    window.cadEvents.push(e.data);
  });
  window.ask = (message) => new Promise((resolve) => {
    const requestId = Math.random().toString(36).slice(2);
    const seen = window.cadEvents.length;
    const poll = setInterval(() => {
      const answer = window.cadEvents.slice(seen).find((m) => m.requestId === requestId);
      if (answer) { clearInterval(poll); resolve(answer); }
    }, 20);
    frame.contentWindow.postMessage({ ...message, requestId }, HUB);
  });
</script></body></html>`;

/** A partner's own Preact layout from /sdk/v1/preact.js, with the share and snapshot hooks. */
const PREACT_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<div id="app"></div>
<script type="module">
  import { ConfiguratorProvider, CONFIGURATOR_CSS, h, render, useRender, useShareUrl, useSnapshot,
    Viewer } from "{{HUB_URL}}/sdk/v1/preact.js";
  document.head.append(Object.assign(document.createElement("style"), { textContent: CONFIGURATOR_CSS }));
  const values = { width: 77, countersink: false };
  function App() {
    const { status, result, render: draw, project } = useRender();
    const link = useShareUrl(values, "https://shop.example/bracket");
    const snapshot = useSnapshot();
    if (project && status === "idle") draw(values);
    window.cadSnapshot = snapshot;
    return h("div", { class: "cad-configurator", style: "height:500px" },
      h("a", { id: "share", href: link ?? "#", "data-render": status }, "Share"),
      h("div", { class: "cad-stage", style: "height:440px" }, h(Viewer, { result, loading: status === "rendering" })));
  }
  render(h(ConfiguratorProvider, { keyId: "{{KEY_ID}}", projectKey: "wall-bracket", hubBaseUrl: "{{HUB_URL}}" }, h(App)),
    document.getElementById("app"));
</script></body></html>`;

/** What a decoded PNG shows: its size, and its pixels against the background and a colour. */
interface PngStats {
  width: number;
  height: number;
  /** Pixels that differ from the background in the centre half of the image, as a fraction. */
  centreDrawn: number;
  /** Pixels within 48 (sum of RGB differences) of `color`, as a fraction of the image. */
  colorShare: number;
  /** Alpha of the top-left pixel. */
  cornerAlpha: number;
  /** Drawn pixels in the outer 5 % of each side (the preset leaves 6 % free). */
  edgeDrawn: number;
}

/** Decodes a PNG (base64) with the browser's image decoder and counts what it shows. */
function pngStats(page: Page, base64: string, color: string): Promise<PngStats> {
  return page.evaluate(async ({ base64, color }) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(bitmap, 0, 0);
    const { data, width, height } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    const bg = [data[0], data[1], data[2]];
    const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
    let centre = 0;
    let centreDrawn = 0;
    let colored = 0;
    let edgeDrawn = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        const px = [data[i], data[i + 1], data[i + 2]];
        const diff = (a: number[]) =>
          Math.abs(px[0] - a[0]) + Math.abs(px[1] - a[1]) +
          Math.abs(px[2] - a[2]);
        if (diff(want) < 48 && data[i + 3] > 200) colored++;
        const drawn = diff(bg) > 24 || Math.abs(data[i + 3] - data[3]) > 24;
        const edge = x < width * 0.05 || x >= width * 0.95 || y < height * 0.05 ||
          y >= height * 0.95;
        if (edge && drawn) edgeDrawn++;
        if (x >= width / 4 && x < (width * 3) / 4 && y >= height / 4 && y < (height * 3) / 4) {
          centre++;
          if (drawn) centreDrawn++;
        }
      }
    }
    return {
      width,
      height,
      centreDrawn: centreDrawn / centre,
      colorShare: colored / (width * height),
      cornerAlpha: data[3],
      edgeDrawn,
    };
  }, { base64, color });
}

/** The PNG's own header: signature and IHDR width and height. */
function pngHeader(bytes: Uint8Array): { width: number; height: number } {
  assert.deepEqual([...bytes.slice(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  assert.equal(new TextDecoder().decode(bytes.slice(12, 16)), "IHDR");
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function fromBase64(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function waitDrawn(target: Page | Frame, selector: string): Promise<string> {
  const cfg = target.locator(selector);
  await cfg.and(target.locator('[data-token-status="ready"]')).waitFor({ timeout: 30_000 });
  await cfg.and(target.locator('[data-render-status="ready"]')).waitFor({ timeout: 30_000 });
  return (await cfg.getAttribute("data-dag-hash")) ?? "";
}

Deno.test({
  name:
    "e2e - share link: a changed configuration reopens exactly from its URL, element and iframe",
  ...e2e,
  async fn(t) {
    const setup = await startShop({
      extraPages: { "/element.html": ELEMENT_PAGE, "/frame.html": FRAME_PAGE },
    });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const errors: string[] = [];
      const consoleLines: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => consoleLines.push(m.text()));
      await page.goto(`${setup.shop}/element.html?utm=mail`);
      const el = "cad-configurator .cad-configurator";
      const firstHash = await waitDrawn(page, el);

      // The shopper moves the width slider three steps, picks a colour and turns gussets off.
      const slider = page.locator('cad-configurator [data-param="width"] input[type=range]');
      await slider.focus();
      for (let i = 0; i < 3; i++) await slider.press("ArrowRight");
      await page.locator('cad-configurator [data-param="color"] button[data-color="#c0392b"]')
        .click();
      await page.locator('cad-configurator [data-param="gussets"] input').click();
      await dagHashChange(page, firstHash);
      const changedHash = await waitDrawn(page, el);
      const values = await page.evaluate(() =>
        (globalThis as unknown as { lastValues: Record<string, unknown> }).lastValues
      );
      assert.equal(values.width, 43);
      assert.equal(values.color, "#c0392b");
      assert.equal(values.gussets, false);

      let shareUrl = "";
      await t.step(
        "getShareUrl() on the element: this page, compact, other parameters kept",
        async () => {
          shareUrl = await page.evaluate(() =>
            (document.querySelector("cad-configurator") as unknown as {
              getShareUrl(): Promise<string>;
            }).getShareUrl()
          );
          const url = new URL(shareUrl);
          assert.equal(`${url.origin}${url.pathname}`, `${setup.shop}/element.html`);
          assert.equal(url.searchParams.get("utm"), "mail");
          const version = shareUrl.match(/cad=1~wall-bracket~(\d+)~/)?.[1];
          assert.ok(version, shareUrl);
          assert.ok(
            shareUrl.endsWith(`~width~43~gussets~0~color~c0392b`),
            `only the changed values, in form order: ${shareUrl}`,
          );
          assert.ok(shareUrl.length < 200, `${shareUrl.length} characters`);
        },
      );

      await t.step("the link opens the same values, drawn the same, in a new page", async () => {
        const again = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        again.on("pageerror", (e) => errors.push(String(e)));
        again.on("console", (m) => consoleLines.push(m.text()));
        await again.goto(shareUrl);
        const hash = await waitDrawn(again, el);
        assert.equal(hash, changedHash, "the same finished DAG is drawn");
        const restored = await again.evaluate(() =>
          (globalThis as unknown as { readyValues: Record<string, unknown> }).readyValues
        );
        assert.deepEqual(restored, values);
        await again.locator('cad-configurator [data-param="width"] output', { hasText: "43 mm" })
          .waitFor();
        assert.equal(await again.locator("cad-configurator .cad-share-note").count(), 0);
        await again.waitForTimeout(300);
        const pixels = await modelPixels(again);
        assert.ok(pixels.drawn > pixels.total * 0.02, `drawn (${pixels.drawn})`);
        await again.screenshot({ path: `${ARTIFACTS}share_link_restored.png` });
        await again.close();
      });

      await t.step(
        "a link with a bad and an unknown value: the rest applies, a note says so",
        async () => {
          const bad = shareUrl.replace("~width~43", "~width~999~drill~3");
          const again = await browser.newPage({ viewport: { width: 1280, height: 860 } });
          again.on("pageerror", (e) => errors.push(String(e)));
          again.on("console", (m) => consoleLines.push(m.text()));
          await again.goto(bad);
          await waitDrawn(again, el);
          const restored = await again.evaluate(() =>
            (globalThis as unknown as { readyValues: Record<string, unknown> }).readyValues
          );
          assert.equal(restored.width, 40, "the default replaces the refused value");
          assert.equal(restored.color, "#c0392b");
          const note = again.locator('cad-configurator .cad-share-note[role="status"]');
          await note.waitFor();
          assert.equal(
            await note.getAttribute("data-share-notes"),
            "invalid_value unknown_parameter",
          );
          const text = await note.textContent();
          assert.ok(text?.includes("Width") && text.includes("drill"), text ?? "");
          await again.screenshot({ path: `${ARTIFACTS}share_link_note.png` });
          const violations = await runAxe(again);
          assert.deepEqual(violations, [], formatViolations(violations));
          await again.locator('cad-configurator .cad-share-note button[aria-label="Dismiss"]')
            .click();
          assert.equal(await again.locator("cad-configurator .cad-share-note").count(), 0);
          await again.close();
        },
      );

      await t.step(
        "the hosted iframe restores the forwarded link and answers cad:getShareUrl",
        async () => {
          const value = new URL(shareUrl).searchParams.get("cad")!;
          const host = await browser.newPage({ viewport: { width: 1280, height: 860 } });
          host.on("pageerror", (e) => errors.push(String(e)));
          await host.goto(`${setup.shop}/frame.html?cad=${encodeURIComponent(value)}`);
          const events = () =>
            host.evaluate(() =>
              (globalThis as unknown as { cadEvents: Array<Record<string, unknown>> }).cadEvents
            );
          await until(
            async () => (await events()).some((m) => m.type === "cad:rendered"),
            "the iframe's first render",
          );
          const ready = (await events()).find((m) => m.type === "cad:ready")!;
          assert.deepEqual(ready.values, values);
          const rendered = (await events()).find((m) => m.type === "cad:rendered")!;
          assert.equal(rendered.dagHash, changedHash);
          const answer = await host.evaluate(() =>
            (globalThis as unknown as { ask(m: unknown): Promise<Record<string, unknown>> }).ask({
              type: "cad:getShareUrl",
              baseUrl: location.href,
            })
          );
          assert.equal(answer.type, "cad:shareUrl");
          assert.equal(answer.value, value);
          assert.equal(
            answer.url,
            `${setup.shop}/frame.html?cad=${value}`,
            "the parent's page with the same link",
          );
          // Without a base: the parent's page as the referrer gives it (its origin, cross-origin).
          const plain = await host.evaluate(() =>
            (globalThis as unknown as { ask(m: unknown): Promise<Record<string, unknown>> }).ask({
              type: "cad:getShareUrl",
            })
          );
          assert.equal(plain.url, `${setup.shop}/?cad=${value}`);
          await host.close();
        },
      );

      assert.deepEqual(errors, []);
      // Restoring, refusing and noting happen without a word in the console.
      assert.deepEqual(consoleLines.filter((l) => /cad|share|link/i.test(l)), []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});

Deno.test({
  name: "e2e - cart snapshot: a PNG of the model from the element and the iframe API",
  ...e2e,
  async fn(t) {
    const setup = await startShop({
      extraPages: {
        "/element.html": ELEMENT_PAGE,
        "/frame.html": FRAME_PAGE,
        "/preact.html": PREACT_PAGE,
      },
    });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${setup.shop}/element.html`);
      await waitDrawn(page, "cad-configurator .cad-configurator");

      await t.step(
        "element: snapshot() is a 512 × 512 PNG of the bracket in its colour",
        async () => {
          // The shopper orbited: the snapshot's camera is its own.
          const view = page.locator("cad-configurator .cad-viewer__canvas");
          await view.focus();
          await view.press("ArrowLeft");
          await view.press("ArrowUp");
          const before = await page.evaluate(() =>
            (document.querySelector("cad-configurator") as unknown as {
              view: { cameraPosition: number[]; framesDrawn: number };
            }).view.cameraPosition
          );
          const base64 = await page.evaluate(async () => {
            const el = document.querySelector("cad-configurator") as unknown as {
              snapshot(): Promise<Blob>;
            };
            const blob = await el.snapshot();
            const bytes = new Uint8Array(await blob.arrayBuffer());
            let s = "";
            for (const b of bytes) s += String.fromCharCode(b);
            return `${blob.type}|${btoa(s)}`;
          });
          const [type, data] = base64.split("|");
          assert.equal(type, "image/png");
          const bytes = fromBase64(data);
          assert.ok(bytes.length > 2000, `${bytes.length} bytes`);
          assert.deepEqual(pngHeader(bytes), { width: 512, height: 512 });
          await Deno.writeFile(`${ARTIFACTS}snapshot_element.png`, bytes);
          const stats = await pngStats(page, data, "#4a6fa5");
          assert.equal(stats.width, 512);
          assert.equal(stats.height, 512);
          assert.equal(stats.cornerAlpha, 255);
          assert.ok(stats.centreDrawn > 0.25, `the model fills the centre (${stats.centreDrawn})`);
          assert.ok(stats.colorShare > 0.01, `the bracket's colour shows (${stats.colorShare})`);
          assert.equal(stats.edgeDrawn, 0, "the model stays inside the preset's margin");
          const after = await page.evaluate(() =>
            (document.querySelector("cad-configurator") as unknown as {
              view: { cameraPosition: number[] };
            }).view.cameraPosition
          );
          assert.deepEqual(after, before, "the shopper's camera did not move");
          const pixels = await modelPixels(page);
          assert.ok(pixels.drawn > pixels.total * 0.02, "the shopper's view still shows the model");
        },
      );

      await t.step(
        "element: a size, a transparent background, a data URL, a refused size",
        async () => {
          const out = await page.evaluate(async () => {
            const el = document.querySelector("cad-configurator") as unknown as {
              snapshotDataUrl(o: unknown): Promise<string>;
              snapshot(o: unknown): Promise<Blob>;
            };
            const url = await el.snapshotDataUrl({
              width: 320,
              height: 200,
              background: "transparent",
            });
            const refused = await el.snapshot({ width: 9000 }).then(
              () => "resolved",
              (e: { code?: string }) => e.code,
            );
            return { url, refused };
          });
          assert.ok(out.url.startsWith("data:image/png;base64,"));
          const data = out.url.slice("data:image/png;base64,".length);
          assert.deepEqual(pngHeader(fromBase64(data)), { width: 320, height: 200 });
          const stats = await pngStats(page, data, "#4a6fa5");
          assert.equal(stats.cornerAlpha, 0, "transparent background");
          assert.ok(stats.centreDrawn > 0.25, `${stats.centreDrawn}`);
          assert.equal(out.refused, "invalid_snapshot_options");
        },
      );

      await t.step("a snapshot right after a change shows the change", async () => {
        const data = await page.evaluate(async () => {
          const el = document.querySelector("cad-configurator") as unknown as {
            setParameters(v: unknown): void;
            snapshotDataUrl(): Promise<string>;
          };
          el.setParameters({ color: "#27ae60" });
          return (await el.snapshotDataUrl()).split(",")[1];
        });
        const stats = await pngStats(page, data, "#27ae60");
        assert.ok(stats.colorShare > 0.01, `the new colour shows (${stats.colorShare})`);
      });

      await t.step("Preact hooks from /sdk/v1/preact.js: useShareUrl and useSnapshot", async () => {
        const app = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        app.on("pageerror", (e) => errors.push(String(e)));
        await app.goto(`${setup.shop}/preact.html`);
        await app.locator('#share[data-render="ready"]').waitFor({ timeout: 30_000 });
        const href = await app.locator("#share").getAttribute("href");
        assert.match(
          href ?? "",
          /^https:\/\/shop\.example\/bracket\?cad=1~wall-bracket~\d+~width~77~countersink~0$/,
        );
        const data = await app.evaluate(async () => {
          const snapshot = (globalThis as unknown as {
            cadSnapshot(o: unknown): Promise<Blob>;
          }).cadSnapshot;
          const bytes = new Uint8Array(
            await (await snapshot({ width: 300, height: 300 }))
              .arrayBuffer(),
          );
          let s = "";
          for (const b of bytes) s += String.fromCharCode(b);
          return btoa(s);
        });
        assert.deepEqual(pngHeader(fromBase64(data)), { width: 300, height: 300 });
        const stats = await pngStats(app, data, "#4a6fa5");
        assert.ok(stats.centreDrawn > 0.25, `${stats.centreDrawn}`);
        assert.equal(stats.edgeDrawn, 0);
        await app.close();
      });

      await t.step("iframe API: cad:snapshot answers with a PNG Blob", async () => {
        const host = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        host.on("pageerror", (e) => errors.push(String(e)));
        await host.goto(`${setup.shop}/frame.html`);
        await until(
          async () =>
            (await host.evaluate(() =>
              (globalThis as unknown as { cadEvents: Array<{ type: string }> }).cadEvents
            )).some((m) => m.type === "cad:rendered"),
          "the iframe's first render",
        );
        const answer = await host.evaluate(async () => {
          const a = await (globalThis as unknown as {
            ask(m: unknown): Promise<{ png?: Blob; width: number; height: number; type: string }>;
          }).ask({ type: "cad:snapshot", width: 400, height: 400 });
          const bytes = new Uint8Array(await a.png!.arrayBuffer());
          let s = "";
          for (const b of bytes) s += String.fromCharCode(b);
          const refused = await (globalThis as unknown as {
            ask(m: unknown): Promise<{ code?: string; error?: string }>;
          }).ask({ type: "cad:snapshot", background: "not-a-colour" });
          return {
            type: a.type,
            isBlob: a.png instanceof Blob,
            width: a.width,
            height: a.height,
            data: btoa(s),
            refused,
          };
        });
        assert.equal(answer.type, "cad:snapshot");
        assert.ok(answer.isBlob);
        assert.equal(answer.width, 400);
        const bytes = fromBase64(answer.data);
        assert.deepEqual(pngHeader(bytes), { width: 400, height: 400 });
        await Deno.writeFile(`${ARTIFACTS}snapshot_iframe.png`, bytes);
        const stats = await pngStats(host, answer.data, "#4a6fa5");
        assert.ok(stats.centreDrawn > 0.25, `${stats.centreDrawn}`);
        assert.ok(stats.colorShare > 0.01, `${stats.colorShare}`);
        assert.equal(stats.edgeDrawn, 0);
        assert.equal(answer.refused.code, "invalid_snapshot_options");
        assert.ok(answer.refused.error?.includes("background"));
        await host.close();
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
