/**
 * Slider-to-pixels against a floor (issue 15, part 2): in headless Chromium, a parameter change on
 * `<cad-configurator>` (a partner page on its own origin, browser-flow token) until the new mesh is
 * drawn, next to the least a page can do for the same change (`slider_floor_page.ts`): fetch the
 * same answer's bytes from a bare server on its own origin, decode them with the client's decoder
 * (`decodeRenderBody`),
 * swap the geometry in a bare three.js scene drawn as the product draws it, wait two frames.
 *
 * - **cached** (values rendered before: an L1 hit whose answer names meshes the client holds): the
 *   floor server replays the very bytes the product received for the same change, recorded
 *   through the DevTools protocol; every example.
 * - **uncached** (values never evaluated): the floor server builds the same spur gear directly with
 *   manifold-3d on a warm worker and encodes it with the kernel's mesh codec
 *   (`floor_render_worker.ts`), answering the JSON form (the product gets the binary form; the
 *   difference is base64 against byte ranges for one mesh). The demo key's budget is unlimited,
 *   so the product spends none in Redis and the floor does not either. Only the spur gear has a direct build, so the uncached ratio is the
 *   gear's; for the other examples the floor replays the product's uncached bytes (no evaluation),
 *   printed for information.
 *
 * - **color pick** (the spur gear's color, a new color each time): the product shows a color-only
 *   change at once on the meshes it holds (lib/client/color_preview.ts), its render still on the
 *   way; the floor page recolors its parts' material and waits the same two frames. The product's
 *   time until the render's answer is drawn is printed beside it (what a pick waited for before).
 *
 * Product and floor alternate change by change on two pages of one browser, so both see the same
 * load. Ratios are of p50s (product ÷ floor, lower is better; target ≤ 1.2 each).
 */
import { join } from "node:path";
import type { Page, Response } from "playwright-core";
import { launchBrowser } from "../tests/e2e/browser.ts";
import { loadConfig } from "../lib/config.ts";
import { createSdkKey } from "../lib/hub/sdk_keys.ts";
import { Logger } from "../lib/ops/logger.ts";
import { startServer } from "../lib/app/server.ts";
import manifest from "../manifest.gen.ts";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { configuratorDrawn } from "./configurator_ready.ts";
import { percentileOfSorted } from "./stats.ts";
import type { GearValues } from "./direct_gear.ts";
import type { FloorJob, FloorReply } from "./floor_render_worker.ts";

/** The example projects and the parameter each one varies. */
const EXAMPLES: Array<{ project: string; param: string; start: number; max: number }> = [
  { project: "wall-bracket", param: "width", start: 40, max: 120 },
  { project: "storage-box", param: "width", start: 120, max: 300 },
  { project: "spur-gear", param: "teeth", start: 24, max: 80 },
  { project: "vase", param: "height", start: 180, max: 300 },
  { project: "stud-plate", param: "columns", start: 8, max: 32 },
];
const SAMPLES = 12;
/** Color picks per side (one frame of difference is a large share of a pick: more samples). */
const COLOR_PICKS = 24;
/** The spur gear's defaults (examples/projects/spur-gear), as the direct build takes them. */
const GEAR_DEFAULTS: GearValues = {
  teeth: 24,
  module: 2,
  thickness: 8,
  hubDiameter: 20,
  hubHeight: 6,
  boreDiameter: 6,
};

/** One side's change times (ms), by kind. */
interface Times {
  cached: number[];
  uncached: number[];
}

/** What one measurement gives both slider benches. */
export interface SliderMeasurement {
  product: Times;
  /** Floor: cached replays (all examples) and the gear's direct builds. */
  floor: Times;
  /** The gear alone, product side (the uncached ratio's numerator). */
  gearProductUncached: number[];
  /** Floor replays of the product's uncached bytes (no evaluation), all examples but the gear. */
  replayUncached: number[];
  productOtherUncached: number[];
  /** Gear color picks: the product's preview drawn, its render's answer drawn, the floor's. */
  colorPick: { drawn: number[]; rendered: number[]; floor: number[] };
  details: string[];
  problems: string[];
}

function p50(ms: number[]): number {
  return percentileOfSorted([...ms].sort((a, b) => a - b), 50);
}

function p95(ms: number[]): number {
  return percentileOfSorted([...ms].sort((a, b) => a - b), 95);
}

/** Bundles the floor page for the browser (three.js and the client's decoder included). */
export async function bundleFloorPage(dir: string): Promise<string> {
  const out = join(dir, "floor.js");
  const entry = new URL("./slider_floor_page.ts", import.meta.url).pathname;
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "--format",
      "esm",
      "--minify",
      "-o",
      out,
      entry,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(`floor page bundle failed: ${new TextDecoder().decode(result.stderr)}`);
  }
  return await Deno.readTextFile(out);
}

/**
 * The worker's build (`{scene: {triangles, volume}, meshes}`) as a render response in JSON form:
 * one gold part at the origin, the gear's bounding box from its radii and heights.
 */
function gearResponse(json: string, v: GearValues): string {
  const built = JSON.parse(json) as {
    scene: { triangles: number; volume: number };
    meshes: Record<string, unknown>;
  };
  const r = v.module * (v.teeth / 2 + 1);
  const [mesh] = Object.keys(built.meshes);
  return JSON.stringify({
    scene: {
      parts: [{ name: "gear", color: "#c9a227", mesh, translations: [0, 0, 0] }],
      bbox: { min: [-r, -r, 0], max: [r, r, v.thickness + v.hubHeight] },
      ...built.scene,
    },
    meshes: built.meshes,
    omitted: [],
    kernel: "floor",
    kernelVersion: "0",
    project: "spur-gear",
    version: 1,
    dagHash: "",
    cache: "miss",
    budget: { remaining: null },
  });
}

/** The floor's server: its page, replays of recorded answers, and direct gear builds. */
async function startFloorServer(script: string) {
  const worker = new Worker(new URL("./floor_render_worker.ts", import.meta.url), {
    type: "module",
  });
  const waiting = new Map<number, (json: string) => void>();
  await new Promise<void>((ready) => {
    worker.onmessage = (event: MessageEvent<FloorReply | "ready">) => {
      if (event.data === "ready") return ready();
      waiting.get(event.data.id)?.(event.data.json);
      waiting.delete(event.data.id);
    };
  });
  let nextId = 1;
  const recorded = new Map<string, { bytes: Uint8Array<ArrayBuffer>; type: string }>();
  const ac = new AbortController();
  let port = 0;
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: (addr) => {
      port = addr.port;
      listening.resolve();
    },
  }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/floor.js") {
      return new Response(script, { headers: { "content-type": "text/javascript" } });
    }
    if (url.pathname === "/") {
      return new Response(
        `<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}</style>
<script type="module" src="/floor.js"></script></head><body></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    }
    const body = await req.text();
    if (url.pathname === "/replay") {
      const hit = recorded.get(url.searchParams.get("k") ?? "");
      if (!hit) return new Response("not recorded", { status: 404 });
      return new Response(hit.bytes, { headers: { "content-type": hit.type } });
    }
    if (url.pathname === "/gear") {
      const { values } = JSON.parse(body) as { values: GearValues };
      const json = await new Promise<string>((resolve) => {
        const job: FloorJob = { id: nextId++, values };
        waiting.set(job.id, resolve);
        worker.postMessage(job);
      });
      return new Response(gearResponse(json, values), {
        headers: { "content-type": "application/json" },
      });
    }
    return new Response("not found", { status: 404 });
  });
  await listening.promise;
  return {
    origin: `http://127.0.0.1:${port}`,
    record(key: string, bytes: Uint8Array<ArrayBuffer>, type: string) {
      recorded.set(key, { bytes, type });
    },
    async close() {
      ac.abort();
      await server.finished;
      worker.terminate();
    },
  };
}

/** Changes `name` to `value` on the product page; ms from `setParameters` to two frames drawn. */
function productChange(page: Page, name: string, value: number): Promise<number> {
  return page.evaluate(async ([name, v]) => {
    const el = document.querySelector("cad-configurator") as HTMLElement & {
      setParameters(values: Record<string, unknown>): void;
    };
    const t0 = performance.now();
    const drawn = new Promise<void>((resolve) => {
      const on = (e: Event) => {
        if ((e as CustomEvent).detail.result.values[name as string] === v) {
          el.removeEventListener("cad-rendered", on);
          resolve();
        }
      };
      el.addEventListener("cad-rendered", on);
    });
    el.setParameters({ [name as string]: v });
    await drawn;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return performance.now() - t0;
  }, [name, value] as const);
}

/**
 * Picks `color` for the gear's `color` parameter on the product page: ms from `setParameters`
 * until the view shows it and two frames have passed (`drawn`), and until the render's answer
 * for it has been drawn likewise (`rendered`).
 */
function productColorPick(page: Page, color: string): Promise<{ drawn: number; rendered: number }> {
  return page.evaluate(async (color) => {
    const el = document.querySelector("cad-configurator") as HTMLElement & {
      setParameters(values: Record<string, unknown>): void;
      view: { partColors: string[] };
    };
    const twoFrames = () =>
      new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const t0 = performance.now();
    const answered = new Promise<void>((resolve) => {
      const on = (e: Event) => {
        if ((e as CustomEvent).detail.result.values.color === color) {
          el.removeEventListener("cad-rendered", on);
          resolve();
        }
      };
      el.addEventListener("cad-rendered", on);
    });
    el.setParameters({ color });
    // The scene is handed to the view in the re-render this change queues (a microtask), so it
    // is looked for in microtasks: a timer's task may run only after the next frame, which
    // counted a frame the product does not wait for (docs/performance.md, twenty-fifth session).
    for (let turns = 0; el.view.partColors[0] !== color; turns++) {
      await (turns < 100 ? Promise.resolve() : new Promise((r) => setTimeout(r, 0)));
    }
    await twoFrames();
    const drawn = performance.now() - t0;
    await answered;
    await twoFrames();
    return { drawn, rendered: performance.now() - t0 };
  }, color);
}

/** The floor page's color pick (`floorRecolor`). */
function floorColorPick(page: Page, color: string): Promise<number> {
  return page.evaluate(
    (color) =>
      (globalThis as unknown as { floorRecolor(c: string): Promise<number> }).floorRecolor(color),
    color,
  );
}

/** The same change on the floor page (`url` answers the bytes; `body` is what gets POSTed). */
function floorChange(page: Page, url: string, body: string): Promise<number> {
  return page.evaluate(
    ([url, body]) =>
      (globalThis as unknown as { floorChange(u: string, b: string): Promise<number> })
        .floorChange(url, body),
    [url, body] as const,
  );
}

/** Runs `change` and returns its time with the render exchange it caused (request and answer). */
async function recorded(
  page: Page,
  change: () => Promise<number>,
): Promise<{ ms: number; request: string; bytes: Uint8Array<ArrayBuffer>; type: string }> {
  const answer = page.waitForResponse((r) =>
    r.url().endsWith("/render") && r.request().method() === "POST"
  );
  const ms = await change();
  const res = await answer;
  const bytes = new Uint8Array(await res.body());
  return {
    ms,
    request: res.request().postData() ?? "",
    bytes,
    type: res.headers()["content-type"] ?? "application/json",
  };
}

let measured: Promise<SliderMeasurement> | undefined;

/** Measures once per process; both slider benches read the same run. */
export function measureSlider(progress: (line: string) => void): Promise<SliderMeasurement> {
  measured ??= measure(progress);
  return measured;
}

async function measure(progress: (line: string) => void): Promise<SliderMeasurement> {
  const dir = await Deno.makeTempDir({ prefix: "cadcfg-slider-" });
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: ":memory:",
    SEED_DEMO: "true",
    LOG_LEVEL: "error",
  });
  const hub = await startServer(config, manifest, { log: new Logger("error") });
  const floor = await startFloorServer(await bundleFloorPage(dir));
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const pageOrigin = `http://127.0.0.1:${port}`;
  const { record } = await createSdkKey(hub.deps.kv, {
    partnerId: hub.demo!.partnerId,
    label: "slider bench",
    allowedOrigins: [pageOrigin],
    allowedProjects: hub.demo!.projects,
    budget: null,
    rateLimit: { points: 100_000, durationSeconds: 60 },
  });
  const ac = new AbortController();
  const pageServer = Deno.serve(
    { port, hostname: "127.0.0.1", signal: ac.signal, onListen() {} },
    (req) => {
      const project = new URL(req.url).searchParams.get("project") ?? "wall-bracket";
      return new Response(
        `<!DOCTYPE html><html><head><meta charset="utf-8">
<script type="module" src="${hub.url}/sdk/v1/embed.js"></script>
<style>body{margin:0} cad-configurator{height:600px}</style></head><body>
<cad-configurator key-id="${record.keyId}" project="${project}" hub-url="${hub.url}"></cad-configurator>
</body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    },
  );
  const browser = await launchBrowser();
  const m: SliderMeasurement = {
    product: { cached: [], uncached: [] },
    floor: { cached: [], uncached: [] },
    gearProductUncached: [],
    replayUncached: [],
    productOtherUncached: [],
    colorPick: { drawn: [], rendered: [], floor: [] },
    details: [],
    problems: [],
  };
  try {
    for (const ex of EXAMPLES) {
      const product = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      // The first render's and the warm-up's answers, replayed to the floor before it starts
      // (later ones may name meshes only they carried).
      const early: Promise<{ request: string; bytes: Uint8Array<ArrayBuffer>; type: string }>[] =
        [];
      const collect = (res: Response) => {
        if (!res.url().endsWith("/render") || res.request().method() !== "POST") return;
        early.push(
          res.body().then((body) => ({
            request: res.request().postData() ?? "",
            bytes: new Uint8Array(body),
            type: res.headers()["content-type"] ?? "application/json",
          })),
        );
      };
      product.on("response", collect);
      await product.goto(`${pageOrigin}/?project=${ex.project}`);
      await configuratorDrawn(product);
      const size = await product.evaluate(() => {
        const canvas = document.querySelector("cad-configurator")!.shadowRoot!
          .querySelector("canvas")!;
        return [canvas.clientWidth, canvas.clientHeight];
      });
      const floorPage = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      await floorPage.goto(`${floor.origin}/?w=${size[0]}&h=${size[1]}`);
      await floorPage.locator("body[data-ready]").waitFor({ timeout: 60_000 });
      const values: number[] = [];
      for (let i = 1; i <= SAMPLES + 1; i++) values.push(Math.min(ex.max, ex.start + i));
      await productChange(product, ex.param, values[0]);
      product.off("response", collect);
      for (const [i, answer] of (await Promise.all(early)).entries()) {
        floor.record(`${ex.project}:early:${i}`, answer.bytes, answer.type);
        await floorChange(
          floorPage,
          `${floor.origin}/replay?k=${ex.project}:early:${i}`,
          answer.request,
        );
      }
      const gear = ex.project === "spur-gear";
      if (gear) {
        await floorChange(
          floorPage,
          `${floor.origin}/gear`,
          JSON.stringify({ values: { ...GEAR_DEFAULTS, teeth: values[0] } }),
        );
      }
      const pu: number[] = [];
      const fu: number[] = [];
      const uncachedBytes: Array<{ request: string; key: string }> = [];
      for (const v of values.slice(1)) {
        const r = await recorded(product, () => productChange(product, ex.param, v));
        pu.push(r.ms);
        const key = `${ex.project}:u:${v}`;
        floor.record(key, r.bytes, r.type);
        uncachedBytes.push({ request: r.request, key });
        if (gear) {
          // Same request size as the product's; the floor reads only `values`.
          const body = JSON.stringify({ values: { ...GEAR_DEFAULTS, teeth: v }, dag: r.request });
          fu.push(await floorChange(floorPage, `${floor.origin}/gear`, body));
        }
      }
      // The floor holds the product's meshes (by the product's hashes) before cached changes:
      // replaying the product's uncached answers, timed as network + decode + draw alone.
      const ru: number[] = [];
      for (const { request, key } of uncachedBytes) {
        ru.push(await floorChange(floorPage, `${floor.origin}/replay?k=${key}`, request));
      }
      const pc: number[] = [];
      const fc: number[] = [];
      for (const v of values.slice(1)) {
        const r = await recorded(product, () => productChange(product, ex.param, v));
        pc.push(r.ms);
        const key = `${ex.project}:c:${v}`;
        floor.record(key, r.bytes, r.type);
        fc.push(await floorChange(floorPage, `${floor.origin}/replay?k=${key}`, r.request));
      }
      if (gear) {
        // Distinct colors: each pick's render is a new configuration (reuse keeps the body).
        for (let i = 0; i < COLOR_PICKS; i++) {
          const color = "#" + ((0x2e5a86 + i * 0x0b0a09) % 0x1000000).toString(16).padStart(6, "0");
          const pick = await productColorPick(product, color);
          m.colorPick.drawn.push(pick.drawn);
          m.colorPick.rendered.push(pick.rendered);
          m.colorPick.floor.push(await floorColorPick(floorPage, color));
        }
        const { drawn, rendered, floor: recolored } = m.colorPick;
        const f = (xs: number[]) => `${p50(xs).toFixed(0)}/${p95(xs).toFixed(0)}`;
        m.details.push(
          `${ex.project.padEnd(13)} p50/p95 ms — color pick: product ${f(drawn)} (its render's ` +
            `answer drawn ${f(rendered)}), floor ${f(recolored)}`,
        );
        progress(m.details.at(-1)!);
      }
      m.product.uncached.push(...pu);
      m.product.cached.push(...pc);
      m.floor.cached.push(...fc);
      if (gear) {
        m.floor.uncached.push(...fu);
        m.gearProductUncached.push(...pu);
      } else {
        m.replayUncached.push(...ru);
        m.productOtherUncached.push(...pu);
      }
      const f = (xs: number[]) => `${p50(xs).toFixed(0)}/${p95(xs).toFixed(0)}`;
      m.details.push(
        `${ex.project.padEnd(13)} p50/p95 ms — cached: product ${f(pc)}, floor ${f(fc)}; ` +
          `uncached: product ${f(pu)}, ` +
          (gear ? `floor (direct build) ${f(fu)}` : `floor replay (no evaluation) ${f(ru)}`) +
          `   (${ex.param})`,
      );
      progress(m.details.at(-1)!);
      await product.close();
      await floorPage.close();
    }
  } finally {
    await browser.close();
    ac.abort();
    await pageServer.finished;
    await floor.close();
    await hub.close();
    await Deno.remove(dir, { recursive: true });
  }
  return m;
}

function result(kind: "cached" | "uncached", m: SliderMeasurement): BenchResult {
  const product = kind === "cached" ? m.product.cached : m.gearProductUncached;
  const floor = kind === "cached" ? m.floor.cached : m.floor.uncached;
  const pp = p50(product);
  const fp = p50(floor);
  const extra = kind === "cached"
    ? `all examples, ${product.length} changes each side`
    : `spur gear, ${product.length} changes each side; other examples: product p50 ${
      p50(m.productOtherUncached).toFixed(0)
    } ms, floor replay without evaluation p50 ${p50(m.replayUncached).toFixed(0)} ms`;
  return {
    title: `slider-${kind}`,
    unit: "ms",
    baseline: { label: "floor p50", value: fp },
    candidate: { label: "product p50", value: pp },
    target: 1.2,
    lowerIsBetter: true,
    decimals: 1,
    summary: `product p50 ${pp.toFixed(1)} ms p95 ${p95(product).toFixed(1)} ms, floor p50 ${
      fp.toFixed(1)
    } ms p95 ${p95(floor).toFixed(1)} ms; ${extra}`,
    details: kind === "cached" ? m.details : [],
    problems: m.problems,
  };
}

/** A gear color pick → drawn, product ÷ a bare page recoloring its material (≤ 1.2). */
export const colorPickBench: Benchmark = {
  name: "color-pick",
  description: "color pick → drawn, <cad-configurator> ÷ bare three.js page recoloring",
  run: async (progress) => {
    const m = await measureSlider(progress);
    const { drawn, rendered, floor } = m.colorPick;
    return {
      title: "color-pick",
      unit: "ms",
      baseline: { label: "floor p50", value: p50(floor) },
      candidate: { label: "product p50", value: p50(drawn) },
      target: 1.2,
      lowerIsBetter: true,
      decimals: 1,
      summary:
        `spur gear, ${drawn.length} picks each side; product p50 ${p50(drawn).toFixed(1)} ms p95 ${
          p95(drawn).toFixed(1)
        } ms, floor p50 ${p50(floor).toFixed(1)} ms; the render's ` +
        `answer drawn p50 ${p50(rendered).toFixed(1)} ms (what a pick waited for without the ` +
        `preview)`,
      details: [],
      problems: m.problems,
    };
  },
};

/** Cached slider change → drawn, product ÷ a bare page replaying the same bytes (≤ 1.2). */
export const sliderCachedBench: Benchmark = {
  name: "slider-cached",
  description: "cached parameter change → drawn, <cad-configurator> ÷ bare three.js page",
  run: async (progress) => result("cached", await measureSlider(progress)),
};

/** Uncached slider change → drawn, product ÷ a bare page and a direct manifold-3d build (≤ 1.2). */
export const sliderUncachedBench: Benchmark = {
  name: "slider-uncached",
  description: "uncached parameter change → drawn, <cad-configurator> ÷ bare page + direct build",
  run: async (progress) => result("uncached", await measureSlider(progress)),
};
