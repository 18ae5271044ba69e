/**
 * Browser benchmark: in headless Chromium, a parameter change on `<cad-configurator>` (a partner
 * page on its own origin, browser-flow token) until the new mesh is drawn — `setParameters`, the
 * render request, decoding, the three.js scene swap and two animation frames. For each example
 * project: p50 and p95 of uncached configurations (values the kernel has never evaluated, so it
 * evaluates them) and of cached ones (values rendered before: an L1 hit, and the client already
 * holds the meshes, so none are downloaded). The comparison is cached ÷ uncached throughput of the
 * medians over all examples (the cache must pay for itself: target ≥ 1).
 *
 * Also: the viewer's `renderer.info.memory.geometries` after 200 scene replacements ÷ before; any
 * value other than 1 (a leak, or geometry freed while shown) makes the result INVALID.
 */
import { launchBrowser } from "../tests/e2e/browser.ts";
import { loadConfig } from "../lib/config.ts";
import { createSdkKey } from "../lib/hub/sdk_keys.ts";
import { Logger } from "../lib/ops/logger.ts";
import { startServer } from "../lib/app/server.ts";
import manifest from "../manifest.gen.ts";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { configuratorDrawn } from "./configurator_ready.ts";
import { percentileOfSorted } from "./stats.ts";

/** The example projects and the parameter each one varies. */
const EXAMPLES: Array<
  { project: string; param: string; start: number; step: number; max: number }
> = [
  { project: "wall-bracket", param: "width", start: 40, step: 1, max: 120 },
  { project: "storage-box", param: "width", start: 120, step: 1, max: 300 },
  { project: "spur-gear", param: "teeth", start: 24, step: 1, max: 80 },
  { project: "vase", param: "height", start: 180, step: 1, max: 300 },
  { project: "stud-plate", param: "columns", start: 8, step: 1, max: 32 },
];
const SAMPLES = 12;
const REPLACEMENTS = 200;

function stats(ms: number[]): { p50: number; p95: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentileOfSorted(sorted, 50), p95: percentileOfSorted(sorted, 95) };
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: ":memory:",
    SEED_DEMO: "true",
    LOG_LEVEL: "error",
  });
  const hub = await startServer(config, manifest, { log: new Logger("error") });
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const pageOrigin = `http://127.0.0.1:${port}`;
  const { record } = await createSdkKey(hub.deps.kv, {
    partnerId: hub.demo!.partnerId,
    label: "browser bench",
    allowedOrigins: [pageOrigin],
    allowedProjects: hub.demo!.projects,
    budget: null,
    rateLimit: { points: 100_000, durationSeconds: 60 },
  });
  const ac = new AbortController();
  const page_server = Deno.serve(
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
  const problems: string[] = [];
  const details: string[] = [];
  const allUncached: number[] = [];
  const allCached: number[] = [];
  let geometryRatio = NaN;
  try {
    for (const ex of EXAMPLES) {
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      await page.goto(`${pageOrigin}/?project=${ex.project}`);
      await configuratorDrawn(page);
      const change = (value: number) =>
        page.evaluate(async ([name, v]) => {
          const el = document.querySelector("cad-configurator") as HTMLElement & {
            setParameters(values: Record<string, unknown>): void;
          };
          const t0 = performance.now();
          const drawn = new Promise<void>((resolve) => {
            const on = (e: Event) => {
              const values = (e as CustomEvent).detail.result.values;
              if (values[name as string] === v) {
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
        }, [ex.param, value] as const);
      // Uncached: values never rendered before (warm the page with one first).
      const values: number[] = [];
      for (let i = 1; i <= SAMPLES + 1; i++) values.push(Math.min(ex.max, ex.start + i * ex.step));
      await change(values[0]);
      const uncached: number[] = [];
      for (const v of values.slice(1)) uncached.push(await change(v));
      // Cached: the same values again.
      const cached: number[] = [];
      for (const v of values.slice(1)) cached.push(await change(v));
      const u = stats(uncached);
      const c = stats(cached);
      allUncached.push(...uncached);
      allCached.push(...cached);
      details.push(
        `${ex.project.padEnd(13)} uncached p50 ${u.p50.toFixed(0)} ms p95 ${u.p95.toFixed(0)} ms` +
          `   cached p50 ${c.p50.toFixed(0)} ms p95 ${c.p95.toFixed(0)} ms   (${ex.param})`,
      );
      progress(details.at(-1)!);
      if (ex.project === "storage-box") {
        const [before, after] = await page.evaluate(async ([name, a, b, n]) => {
          const el = document.querySelector("cad-configurator") as HTMLElement & {
            setParameters(values: Record<string, unknown>): void;
            view: { geometryCount: number };
          };
          const before = el.view.geometryCount;
          for (let i = 0; i < (n as number); i++) {
            const v = i % 2 ? a : b;
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
          }
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          return [before, el.view.geometryCount];
        }, [ex.param, values[1], values[2], REPLACEMENTS] as const);
        geometryRatio = after / before;
        details.push(
          `viewer geometries after ${REPLACEMENTS} replacements ÷ before: ${after} ÷ ${before} = ${
            geometryRatio.toFixed(2)
          }`,
        );
        progress(details.at(-1)!);
        if (geometryRatio !== 1) problems.push(`geometry count ratio is ${geometryRatio}, not 1`);
      }
      await page.close();
    }
  } finally {
    await browser.close();
    ac.abort();
    await page_server.finished;
    await hub.close();
  }
  const u = stats(allUncached);
  const c = stats(allCached);
  return {
    title: "browser",
    unit: "changes/s",
    baseline: { label: "uncached", value: 1000 / u.p50 },
    candidate: { label: "cached", value: 1000 / c.p50 },
    target: 1,
    summary: `all examples: uncached p50 ${u.p50.toFixed(0)} ms p95 ${u.p95.toFixed(0)} ms, ` +
      `cached p50 ${c.p50.toFixed(0)} ms p95 ${c.p95.toFixed(0)} ms; ` +
      `geometries ratio ${geometryRatio.toFixed(2)}`,
    details,
    problems,
  };
}

/** Slider change → new mesh drawn in headless Chromium; viewer geometry count stays flat. */
export const browserBench: Benchmark = {
  name: "browser",
  description: "parameter change → mesh drawn in headless Chromium (cached vs uncached)",
  run,
};
