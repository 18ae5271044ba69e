/**
 * The floor of time to first model (issue 15, part 3), measured by `first_model_bench.ts` in the
 * same run as the product, navigation for navigation: the least a storefront page can do to draw
 * the same first model in this browser. Its loopback server answers:
 *
 * - `/`: a bare page whose inline script sends the render request at once (no token, no project
 *   fetch: a floor below any real implementation), then loads one module;
 * - `/floor.js`: the floor page (`slider_floor_page.ts`: three.js, the client's decoder, the
 *   product's renderer settings, light and material), minified and served as the hub serves its
 *   own bundles (`CodedAsset`);
 * - `/render`: the very answer the product's first render received (recorded in the warm-up
 *   navigation), brotli-compressed at the product's dynamic quality.
 *
 * The page makes its `WebGLRenderer` at the canvas size the product's view has, decodes the answer,
 * swaps it in, draws it on the next frame and marks `floor:first-model` when that frame has been
 * presented, as the product's view marks its first model.
 */
import type { Browser } from "playwright-core";
import { emulateNetwork, type NetworkConditions } from "./network_emulation.ts";
import {
  compressSync,
  type ContentCoding,
  negotiateContentCoding,
} from "../lib/http/content_coding.ts";
import { assetRequest, assetResponse, CodedAsset } from "../lib/http/coded_asset.ts";

/** The hub's `Cache-Control` for its content-hashed bundles (each navigation's cache is new). */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** The mark the floor page sets when its first model has been presented. */
export const FLOOR_MARK = "floor:first-model";

/** The recorded first answer the floor replays, and the canvas size the product's view had. */
export interface FloorScene {
  bytes: Uint8Array;
  type: string;
  width: number;
  height: number;
}

/** One floor navigation: ms since navigation start. */
export interface FloorNavigation {
  firstModel: number;
  html: number;
  js: number;
  render: [number, number];
}

/** The floor's server; `close()` stops it. */
export interface FirstModelFloor {
  /** The floor page's address, once `use` has set the scene. */
  readonly url: string;
  /** Sets the answer `/render` replays and the canvas size (before the first navigation). */
  use(scene: FloorScene): void;
  close(): Promise<void>;
}

/** Starts the floor's server for the bundled floor page `script`. */
export async function startFirstModelFloor(script: string): Promise<FirstModelFloor> {
  // Served as the hub serves its bundles (lib/http/coded_asset.ts), brotli made before the first
  // navigation, as the hub's warm-up navigation leaves its own.
  const js = await CodedAsset.of(
    new TextEncoder().encode(script),
    "text/javascript; charset=utf-8",
  );
  await js.coded("br");
  let scene: FloorScene | undefined;
  // The replayed answer, compressed once per coding at the kernel's per-response effort.
  const renderCoded = new Map<ContentCoding, Uint8Array<ArrayBuffer>>();
  const ac = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen() {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/" && scene) {
        return new Response(page(), { headers: { "content-type": "text/html; charset=utf-8" } });
      }
      if (path === "/floor.js") {
        return await assetResponse(js, assetRequest(req), { cacheControl: IMMUTABLE });
      }
      if (path === "/render" && scene) {
        await req.arrayBuffer();
        const headers: Record<string, string> = {
          "content-type": scene.type,
          vary: "accept-encoding",
        };
        const coding = negotiateContentCoding(req.headers.get("accept-encoding"));
        if (!coding) return new Response(scene.bytes.slice(), { headers });
        let body = renderCoded.get(coding);
        if (!body) renderCoded.set(coding, body = compressSync(scene.bytes, coding, "dynamic"));
        return new Response(body, { headers: { ...headers, "content-encoding": coding } });
      }
      return new Response("not found", { status: 404 });
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    get url() {
      return scene ? `${origin}/?w=${scene.width}&h=${scene.height}` : origin;
    },
    use(s) {
      scene = s;
      renderCoded.clear();
    },
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

/** The floor's HTML: the render request leaves from an inline script, before the module loads. */
function page(): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>floor</title>
<style>body{margin:0}</style>
<script>globalThis.firstAnswer = fetch("/render", {method: "POST", body: "{}"});</script>
<script type="module" src="/floor.js"></script></head><body></body></html>`;
}

/**
 * One cold navigation (a new browser context) to the floor page, on `network` when given; its
 * Performance API figures.
 */
export async function floorNavigation(
  browser: Browser,
  url: string,
  network?: NetworkConditions,
): Promise<FloorNavigation> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    if (network) await emulateNetwork(context, page, network);
    await page.goto(url);
    await page.waitForFunction(
      (name) => performance.getEntriesByName(name).length > 0,
      FLOOR_MARK,
      { timeout: 60_000, polling: 50 },
    );
    return await page.evaluate((name) => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
      const js = resources.find((r) => new URL(r.name).pathname === "/floor.js");
      const render = resources.find((r) => new URL(r.name).pathname === "/render");
      return {
        firstModel: performance.getEntriesByName(name)[0].startTime,
        html: nav.responseEnd,
        js: js?.responseEnd ?? NaN,
        render: [render?.startTime ?? NaN, render?.responseEnd ?? NaN] as [number, number],
      };
    }, FLOOR_MARK);
  } finally {
    await context.close();
  }
}
