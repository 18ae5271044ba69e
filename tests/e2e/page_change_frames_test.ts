/**
 * A change the page makes (`setParameters`) reaches the screen in one frame, in Chromium on a
 * partner origin: between the call and the answer the configurator asks for no animation frame
 * (Preact's effects run in tasks, lib/web/effect_scheduling.ts) and changes no text, so the
 * frame that draws the new model is the first one, and the form shows the new value in that same
 * frame (lib/client/page_change_sync.ts). A render slower than `FORM_SYNC_DEADLINE_MS` shows the
 * value at the deadline, before its model; a shopper's own change shows in the form at once.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchBrowser } from "./browser.ts";
import { startShop, viewShown } from "./storefront_fixture.ts";
import { FORM_SYNC_DEADLINE_MS } from "@/lib/client/page_change_sync.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };

const INNER = "cad-configurator .cad-configurator";

/** What one change did, in ms from the change: frames asked for, text changed, what was shown. */
interface ChangeTrace {
  /** `requestAnimationFrame` calls before the render's answer had arrived. */
  framesAskedBefore: number;
  /** Calls between the answer and `cad-rendered` (the view's own, for the new model). */
  framesAskedAfter: number;
  /** Text changes in the configurator before the answer (or the form's deadline) came. */
  textBefore: string[];
  /** The width field's text in the first frame after `cad-rendered`. */
  fieldInFrame: string;
  /** The width field's text when `FORM_SYNC_DEADLINE_MS` (+ a margin) had passed. */
  fieldAtDeadline: string;
  renderedAt: number;
}

/** Instruments the page's `requestAnimationFrame` (a counter the trace reads). */
async function countFrames(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const g = globalThis as unknown as { framesAsked: number[] };
    g.framesAsked = [];
    const raf = globalThis.requestAnimationFrame.bind(globalThis);
    globalThis.requestAnimationFrame = (cb) => {
      g.framesAsked.push(performance.now());
      return raf(cb);
    };
  });
}

/**
 * Sets the width through the element and traces the change until the frame after its model and
 * the form's deadline (`syncMs`, read 50 ms after it).
 */
function traceChange(
  page: Page,
  width: number,
  syncMs = FORM_SYNC_DEADLINE_MS,
): Promise<ChangeTrace> {
  return page.evaluate(async ([width, syncMs]) => {
    const deadline = syncMs + 50;
    const el = document.querySelector("cad-configurator") as HTMLElement & {
      setParameters(values: Record<string, unknown>): void;
    };
    const root = el.shadowRoot!;
    const field = () =>
      root.querySelector('input[type="range"][name="width"]')!.closest(".cad-field")!
        .querySelector(".cad-field__value")?.textContent ?? "";
    const g = globalThis as unknown as { framesAsked: number[] };
    const t0 = performance.now();
    const text: Array<{ at: number; text: string }> = [];
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === "characterData" || r.type === "childList") {
          text.push({ at: performance.now(), text: r.target.textContent ?? "" });
        }
      }
    });
    observer.observe(root, { subtree: true, childList: true, characterData: true });
    let fieldAtDeadline = "";
    setTimeout(() => (fieldAtDeadline = field()), deadline);
    const rendered = new Promise<{ frames: number[]; at: number }>((resolve) => {
      const on = (e: Event) => {
        if ((e as CustomEvent).detail.result.values.width !== width) return;
        el.removeEventListener("cad-rendered", on);
        resolve({ frames: g.framesAsked.slice(), at: performance.now() - t0 });
      };
      el.addEventListener("cad-rendered", on);
    });
    performance.clearResourceTimings();
    const start = performance.now();
    el.setParameters({ width });
    const { frames, at } = await rendered;
    const answer = (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
      .find((r) => r.name.endsWith("/render"))!.responseEnd;
    const asked = frames.filter((f) => f >= start);
    observer.disconnect();
    const fieldInFrame = await new Promise<string>((r) => requestAnimationFrame(() => r(field())));
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - (performance.now() - t0))));
    return {
      framesAskedBefore: asked.filter((f) => f < answer).length,
      framesAskedAfter: asked.filter((f) => f >= answer).length,
      // Before the answer, or before the deadline when the answer came later (a loaded machine).
      textBefore: text.filter((x) => x.at < Math.min(answer, start + syncMs)).map((x) =>
        `${(x.at - start).toFixed(1)} ms: ${x.text}`
      ),
      fieldInFrame,
      fieldAtDeadline,
      renderedAt: at,
    };
  }, [width, syncMs] as const);
}

Deno.test({
  name: "e2e - a page change: no frame before its answer, the form's value in the model's frame",
  ...e2e,
  async fn(t) {
    const setup = await startShop();
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await countFrames(page);
      await page.goto(`${setup.shop}/`);
      await page.locator(`${INNER}[data-render-status="ready"]`).waitFor({ timeout: 60_000 });
      // The view (made once three.js has loaded) has drawn the first model, and that model's
      // frames and effects are behind us.
      await viewShown(page);
      await page.waitForTimeout(300);

      await t.step("a fast answer: nothing before it, value and model in one frame", async () => {
        for (const width of [61, 62, 61]) {
          const c = await traceChange(page, width);
          assert.equal(c.framesAskedBefore, 0, `frames asked for before the answer (${width})`);
          assert.equal(c.framesAskedAfter, 1, `the view's frame for the new model (${width})`);
          assert.deepEqual(c.textBefore, [], `text changed before the answer (${width})`);
          assert.equal(c.fieldInFrame, `${width} mm`, `the field in the model's frame`);
        }
      });

      await t.step("a slow answer: the value shows at the deadline, before its model", async () => {
        // Hold the next render's request, so its answer comes well after the deadline.
        await page.route("**/render", async (route) => {
          await new Promise((r) => setTimeout(r, 4 * FORM_SYNC_DEADLINE_MS));
          await route.continue();
        });
        const c = await traceChange(page, 63);
        await page.unroute("**/render");
        assert.ok(c.renderedAt > 2 * FORM_SYNC_DEADLINE_MS, `answered at ${c.renderedAt} ms`);
        assert.equal(c.fieldAtDeadline, "63 mm");
      });

      await t.step("a shopper's own change shows in its field at once", async () => {
        const shown = await page.evaluate(async () => {
          const root = document.querySelector("cad-configurator")!.shadowRoot!;
          const input = root.querySelector<HTMLInputElement>('input[type="range"][name="width"]')!;
          input.value = "70";
          input.dispatchEvent(new Event("input", { bubbles: true }));
          // The re-render's task, long before an uncached render of new values can answer.
          await new Promise((r) => setTimeout(r, 0));
          return {
            field: input.closest(".cad-field")!.querySelector(".cad-field__value")?.textContent,
            status: root.querySelector(".cad-configurator")!.getAttribute("data-render-status"),
          };
        });
        assert.deepEqual(shown, { field: "70 mm", status: "rendering" });
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await setup.close();
    }
  },
});
