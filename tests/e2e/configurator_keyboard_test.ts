/**
 * The configurator with a keyboard only, and axe-core over it (WCAG 2.2 AA, issue 18): the
 * `<cad-configurator>` element on a partner origin, Tab through it, every parameter kind changed
 * with keys (Int, Float, Bool, Color on the spur gear; Enum on the vase), the 3D view rotated and
 * zoomed with keys (the camera moved), the live region and the description after a render; axe
 * with zero violations on the element (default and dark theme, drawn and in error states) and on
 * the hosted configurator page (drawn, a refused value, a revoked key). Screenshots of the focus
 * states at 1280×860 and 390×844 go to test-artifacts/.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import axe from "axe-core";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { contrastRatio } from "@/lib/client/theme_contrast.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { configuratorMounted, startShop, until, viewShown } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

/** The dark partner theme of docs/embedding.md, as a partner writes it. */
const DARK_CSS = `cad-configurator {
  --cad-bg: #151922; --cad-surface: #1e2430; --cad-stage: #232a37; --cad-ink: #e9edf3;
  --cad-muted: #aab3c2; --cad-line: #2f3747; --cad-border: #8690a2; --cad-accent: #7ea6ff;
  --cad-focus: #a9c4ff; --cad-danger: #ffa39a; --cad-danger-bg: #3a1d1d; --cad-warn: #fcc97a;
  --cad-warn-bg: #3a2c14; }`;

/** A partner page with landmarks and a heading around the element. */
function partnerPage(project: string, opts: { css?: string; keyId?: string } = {}): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop · ${project}</title>
<style>body{margin:0;font:15px system-ui;background:#fff;color:#1d2330}
main{max-width:1100px;margin:0 auto;padding:16px}cad-configurator{height:620px}
${opts.css ?? ""}</style>
<script type="module" src="{{HUB_URL}}/sdk/v1/embed.js"></script></head><body>
<header><p><a href="/">Shop home</a></p></header>
<main><h1>Design your ${project}</h1>
<cad-configurator key-id="${opts.keyId ?? "{{KEY_ID}}"}" project="${project}" hub-url="{{HUB_URL}}"
  compact></cad-configurator>
<script type="module">
  window.renders = [];
  document.querySelector("cad-configurator").addEventListener("cad-rendered",
    (e) => window.renders.push(e.detail.result.bbox));
</script></main></body></html>`;
}

/** The focused element, through shadow roots: its tag, classes, role, name and param. */
function focused(page: Page) {
  return page.evaluate(() => {
    let el: Element | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    if (!el) return null;
    return {
      tag: el.tagName.toLowerCase(),
      type: el.getAttribute("type") ?? "",
      cls: el.getAttribute("class") ?? "",
      role: el.getAttribute("role") ?? "",
      label: el.getAttribute("aria-label") ?? "",
      param: el.closest("[data-param]")?.getAttribute("data-param") ?? "",
      color: el.getAttribute("data-color") ?? "",
    };
  });
}

type Focused = NonNullable<Awaited<ReturnType<typeof focused>>>;

/** Presses Tab until `want` holds for the focused element (at most 60 presses). */
async function tabTo(page: Page, want: (f: Focused) => boolean, what: string): Promise<Focused> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const f = await focused(page);
    if (f && want(f)) return f;
  }
  throw new Error(`Tab never reached ${what}`);
}

/** What the element's view says and does. */
function viewState(page: Page) {
  return page.evaluate(() => {
    const host = document.querySelector("cad-configurator") as unknown as HTMLElement & {
      view: { cameraDistance: number; cameraPosition: number[]; userMoved: boolean } | null;
    };
    const root = host.shadowRoot!;
    const v = root.querySelector("[data-view]")!;
    const ids = (v.getAttribute("aria-describedby") ?? "").split(" ");
    return {
      distance: host.view?.cameraDistance ?? 0,
      position: host.view?.cameraPosition ?? [],
      userMoved: host.view?.userMoved ?? false,
      role: v.getAttribute("role"),
      name: v.getAttribute("aria-label"),
      busy: v.getAttribute("aria-busy"),
      tabindex: v.getAttribute("tabindex"),
      described: ids.map((id) => root.getElementById(id)?.textContent ?? "<missing>"),
      live: root.querySelector("[data-render-announcement]")?.textContent ?? "",
      dag: root.querySelector(".cad-configurator")!.getAttribute("data-dag-hash") ?? "",
      status: root.querySelector(".cad-configurator")!.getAttribute("data-render-status"),
    };
  });
}

/**
 * Waits for a new drawn scene after `before` (its dag hash) and the live region's "updated" for
 * it (the region says nothing when a render starts and answers fast: its words describe the new
 * scene once they name the size its description names).
 */
async function settled(page: Page, before: string) {
  let s = await viewState(page);
  await until(async () => {
    s = await viewState(page);
    const size = /^Model updated: (.+ mm),/.exec(s.live)?.[1];
    return s.dag !== before && s.status === "ready" && !!size && s.described[0].includes(size);
  }, "the new scene and its announcement");
  return s;
}

/** axe-core's violations on the page (shadow roots included), as "rule: target" lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const r = await (globalThis as any).axe.run(document, { resultTypes: ["violations"] });
    // axe ran its rules over the page (shadow roots included), not over nothing.
    if (r.passes.length < 10) return [`axe passed only ${r.passes.length} rules`];
    // deno-lint-ignore no-explicit-any
    return r.violations.map((v: any) =>
      // deno-lint-ignore no-explicit-any
      `${v.id} (${v.impact}): ${v.nodes.map((n: any) => JSON.stringify(n.target)).join(", ")}`
    );
  });
  return violations as string[];
}

const dims = (text: string) =>
  text.match(/([\d.]+) × ([\d.]+) × ([\d.]+) mm/)?.slice(1).map(Number);

/** The size the text states is within half a millimetre of `want` (an odd tooth count's outline is
 * a little narrower across than its outside diameter). */
function sizeNear(text: string, want: number[]): void {
  const got = dims(text);
  assert.ok(got && got.every((v, i) => Math.abs(v - want[i]) <= 0.5), `${text} ≈ ${want}`);
}

Deno.test({
  name: "e2e - keyboard only: the element's view and every parameter kind, axe-clean",
  ...e2e,
  async fn() {
    const setup = await startShop({
      project: "spur-gear",
      extraPages: {
        "/gear.html": partnerPage("spur-gear"),
        "/gear-dark.html": partnerPage("spur-gear", { css: DARK_CSS }),
        "/vase.html": partnerPage("vase"),
        "/nokey.html": partnerPage("spur-gear", { keyId: "knotakey00000000000" }),
        // A partner's dark theme with a navy accent and dark ink: both fail on the dark ground.
        "/gear-bad.html": partnerPage("spur-gear", {
          css: DARK_CSS + " cad-configurator { --cad-accent: #1a2a6c; --cad-ink: #1d2330; }",
        }),
      },
    });
    const browser = await launchBrowser();
    try {
      for (const viewport of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
        const tag = viewport.width < 500 ? "_phone" : "";
        const page = await browser.newPage({ viewport });
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        const warnings: string[] = [];
        page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
        await page.goto(`${setup.shop}/gear.html`);
        await configuratorMounted(page);
        await until(async () => (await viewState(page)).live.startsWith("Model updated"), "drawn");
        await viewShown(page);
        let s = await viewState(page);

        // The view: an image named after the project, described in words, keys listed.
        assert.equal(s.role, "img");
        assert.equal(s.tabindex, "0");
        assert.equal(s.name, "3D view of Spur gear");
        assert.equal(s.busy, "false");
        const [description, hint] = s.described;
        // 24 teeth of module 2: outside diameter (24 + 2) × 2 = 52 mm; 8 mm face + 6 mm hub.
        assert.deepEqual(dims(description), [52, 52, 14], description);
        assert.match(description, /^Spur gear\. .* \d+ parts?: .*[\d,]+ triangles\.$/);
        assert.match(hint, /Arrow keys rotate, \+ and − or Page Up and Page Down zoom/);
        assert.match(s.live, /^Model updated: 52 × 52 × 14 mm, \d+ parts?$/);

        // Tab from the top of the page into the view.
        const order: string[] = [];
        await tabTo(page, (f) => {
          order.push(f.role || f.tag);
          return f.role === "img";
        }, "the 3D view");
        await page.screenshot({ path: `${ARTIFACTS}a11y_focus_view${tag}.png` });
        const start = s;
        await page.keyboard.press("ArrowRight");
        s = await viewState(page);
        assert.notDeepEqual(s.position, start.position, "ArrowRight orbits");
        assert.ok(
          Math.abs(s.distance - start.distance) < 1e-6 * start.distance,
          "orbit keeps range",
        );
        const afterRight = s.position;
        await page.keyboard.press("ArrowUp");
        s = await viewState(page);
        assert.ok(s.position[2] > afterRight[2], "ArrowUp orbits over the top");
        await page.keyboard.press("+");
        const zoomedIn = (await viewState(page)).distance;
        assert.ok(zoomedIn < s.distance, `+ zooms in (${s.distance} → ${zoomedIn})`);
        await page.keyboard.press("PageDown");
        await page.keyboard.press("PageDown");
        const zoomedOut = (await viewState(page)).distance;
        assert.ok(zoomedOut > s.distance, `PageDown zooms out (${zoomedOut})`);
        assert.equal((await viewState(page)).userMoved, true);
        await page.keyboard.press("Home");
        s = await viewState(page);
        assert.equal(s.userMoved, false, "Home resets the view");
        assert.ok(Math.abs(s.distance - start.distance) < 1e-6 * start.distance);
        assert.deepEqual(
          s.position.map((v) => v.toFixed(3)),
          start.position.map((v) => v.toFixed(3)),
        );

        // Int: Teeth slider, one step right → 25 teeth, (25 + 2) × 2 = 54 mm.
        await tabTo(page, (f) => f.param === "teeth" && f.type === "range", "the Teeth slider");
        await page.screenshot({ path: `${ARTIFACTS}a11y_focus_slider${tag}.png` });
        await page.keyboard.press("ArrowRight");
        s = await settled(page, s.dag);
        assert.match(s.live, /^Model updated: [\d.]+ × [\d.]+ × 14 mm, \d+ parts?$/);
        sizeNear(s.live, [54, 54, 14]);
        sizeNear(s.described[0], [54, 54, 14]);

        // Float: the Module number box, typed → 2.5 mm, (25 + 2) × 2.5 = 67.5 mm.
        await tabTo(page, (f) => f.param === "module" && f.type === "number", "the Module box");
        await page.screenshot({ path: `${ARTIFACTS}a11y_focus_number${tag}.png` });
        await page.keyboard.press("Control+A");
        await page.keyboard.type("2.5");
        await page.keyboard.press("Enter");
        s = await settled(page, s.dag);
        sizeNear(s.described[0], [67.5, 67.5, 14]);

        // Bool: the D-shaft switch, Space.
        const sw = await tabTo(page, (f) => f.param === "dFlat", "the D-shaft switch");
        assert.equal(sw.role, "switch");
        await page.screenshot({ path: `${ARTIFACTS}a11y_focus_switch${tag}.png` });
        await page.keyboard.press("Space");
        s = await settled(page, s.dag);
        const checked = await page.evaluate(() =>
          (document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
            '[data-param="dFlat"] input',
          ) as HTMLInputElement).checked
        );
        assert.equal(checked, true);

        // Color: Tab to the dark swatch, Enter.
        await tabTo(page, (f) => f.color === "#222222", "the dark swatch");
        await page.screenshot({ path: `${ARTIFACTS}a11y_focus_swatch_dark${tag}.png` });
        await page.keyboard.press("Enter");
        s = await settled(page, s.dag);
        const pressed = await page.evaluate(() =>
          document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
            'button[data-color="#222222"]',
          )!.getAttribute("aria-pressed")
        );
        assert.equal(pressed, "true");
        assert.deepEqual(await axeViolations(page), [], "axe: element, drawn, default theme");

        // A refused value: the message is tied to its field, axe still clean.
        await page.keyboard.down("Shift");
        await tabTo(page, (f) => f.param === "boreDiameter" && f.type === "number", "Bore box");
        await page.keyboard.up("Shift");
        await page.keyboard.press("Control+A");
        await page.keyboard.type("500");
        await page.keyboard.press("Enter");
        const tied = await page.evaluate(() => {
          const root = document.querySelector("cad-configurator")!.shadowRoot!;
          const box = root.querySelector('[data-param="boreDiameter"] input[type=number]')!;
          return (box.getAttribute("aria-describedby") ?? "").split(" ")
            .map((id) => root.getElementById(id)?.textContent);
        });
        assert.ok(tied.some((t) => t?.startsWith("Enter a value from 2 to 30 mm")), String(tied));
        assert.deepEqual(await axeViolations(page), [], "axe: element, a refused value");
        assert.deepEqual(errors, []);
        assert.deepEqual(warnings.filter((w) => w.includes("cad-configurator")), []);
        if (tag) assert.ok(order.length > 0);
        await page.close();
      }

      // Enum on the vase: Tab to the select, ArrowDown picks the next style.
      {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${setup.shop}/vase.html`);
        await configuratorMounted(page);
        await until(async () => (await viewState(page)).live.startsWith("Model updated"), "vase");
        const s = await viewState(page);
        const f = await tabTo(page, (f) => f.tag === "select", "the Style select");
        const before = await page.evaluate(
          (p) =>
            (document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
              `[data-param="${p}"] select`,
            ) as HTMLSelectElement).value,
          f.param,
        );
        await page.keyboard.press("ArrowDown");
        await settled(page, s.dag);
        const after = await page.evaluate(
          (p) =>
            (document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
              `[data-param="${p}"] select`,
            ) as HTMLSelectElement).value,
          f.param,
        );
        assert.notEqual(after, before, "ArrowDown chose another option");
        assert.deepEqual(await axeViolations(page), [], "axe: element, vase");
        await page.close();
      }

      // The dark partner theme: no contrast fallback needed, axe clean.
      for (const viewport of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
        const tag = viewport.width < 500 ? "_phone" : "";
        const page = await browser.newPage({ viewport });
        const warnings: string[] = [];
        page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
        await page.goto(`${setup.shop}/gear-dark.html`);
        await configuratorMounted(page);
        await until(async () => (await viewState(page)).live.startsWith("Model updated"), "dark");
        const contrast = await page.evaluate(() =>
          document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
            ".cad-configurator",
          )!.getAttribute("data-cad-contrast")
        );
        assert.equal(contrast, "ok");
        assert.deepEqual(warnings, []);
        assert.deepEqual(await axeViolations(page), [], "axe: element, dark theme");
        await tabTo(page, (f) => f.role === "img", "the 3D view");
        await page.screenshot({ path: `${ARTIFACTS}a11y_dark_focus_view${tag}.png` });
        await tabTo(page, (f) => f.param === "dFlat", "the switch");
        await page.screenshot({ path: `${ARTIFACTS}a11y_dark_focus_switch${tag}.png` });
        await tabTo(page, (f) => f.color === "#222222", "the dark swatch");
        await page.screenshot({ path: `${ARTIFACTS}a11y_dark_focus_swatch${tag}.png` });
        await page.close();
      }

      // A failing partner theme falls back (with a warning per colour) instead of failing silently.
      {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        const warnings: string[] = [];
        page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
        await page.goto(`${setup.shop}/gear-bad.html`);
        await configuratorMounted(page);
        await until(async () => (await viewState(page)).live.startsWith("Model updated"), "bad");
        const used = await page.evaluate(() => {
          const root = document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
            ".cad-configurator",
          ) as HTMLElement;
          return {
            contrast: root.dataset.cadContrast,
            accent: root.style.getPropertyValue("--_cad-accent"),
            ink: getComputedStyle(root).color,
          };
        });
        assert.equal(used.contrast, "fallback");
        // The default accent is tried first and reaches 3:1 on the partner's dark background.
        assert.equal(used.accent, "#2f6fed", "the default accent replaces the navy one");
        assert.ok(contrastRatio(used.accent, "#151922") >= 3);
        assert.equal(used.ink, "rgb(233, 237, 243)", "the dark theme's ink replaces the dark ink");
        assert.ok(
          warnings.some((w) => /--cad-accent \(#1a2a6c\).* 1\.\d\d:1, below the 3:1/.test(w)),
        );
        assert.ok(warnings.some((w) => w.includes("--cad-ink (#1d2330)")), warnings.join("\n"));
        assert.deepEqual(await axeViolations(page), [], "axe: element, a failing theme fixed");
        await page.close();
      }

      // An unknown key: the error is an alert, axe clean.
      {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${setup.shop}/nokey.html`);
        const alert = page.locator("cad-configurator [role=alert]");
        await alert.first().waitFor({ timeout: 30_000 });
        assert.deepEqual(await axeViolations(page), [], "axe: element, error state");
        await page.screenshot({ path: `${ARTIFACTS}a11y_error.png` });
        await page.close();
      }

      // The hosted configurator page (top-level with the demo key, which lists the hub).
      const demoKey = setup.hub.demo!.keyId;
      {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${setup.hub.url}/configurator/spur-gear?key=${demoKey}`);
        await page.locator(".cad-configurator[data-render-status=ready]").waitFor({
          timeout: 30_000,
        });
        await until(
          () =>
            page.evaluate(() =>
              document.querySelector("[data-render-announcement]")?.textContent?.startsWith(
                "Model updated",
              ) ?? false
            ),
          "hosted drawn",
        );
        assert.equal(await page.locator("main.cad-configurator").count(), 1);
        assert.deepEqual(await axeViolations(page), [], "axe: hosted page, drawn");
        const box = page.locator('[data-param="teeth"] input[type=number]');
        await box.fill("500");
        await box.press("Enter");
        await page.locator('[data-param="teeth"] .cad-field__error').waitFor();
        assert.deepEqual(await axeViolations(page), [], "axe: hosted page, a refused value");
        await page.close();
      }
      await revokeSdkKey(setup.hub.deps.kv, demoKey);
      {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${setup.hub.url}/configurator/spur-gear?key=${demoKey}`);
        await page.locator("[data-error-code]").first().waitFor();
        assert.deepEqual(await axeViolations(page), [], "axe: hosted page, revoked key");
        await page.close();
      }
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
