/**
 * A cold render over HTTP through the whole kernel-api (token, origin, template instance, budget,
 * L1 and L2 misses, evaluation on a warm worker, mesh hashing and encoding, the JSON response)
 * versus building the same spur gear directly with manifold-3d in this thread. Each round uses new
 * parameter values (so the server misses both cache levels) and the same values on both sides;
 * the sides alternate which goes first.
 */
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { buildGear, gearValuesFor, loadManifold } from "./direct_gear.ts";
import { renderOnce, startRenderBenchServer } from "./render_fixture.ts";
import { alternateRounds } from "./rounds.ts";
import { median } from "./stats.ts";

const ROUNDS = 21;
const TARGET = 1.15;

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const kernel = await startRenderBenchServer("spur-gear");
  try {
    const wasm = await loadManifold();
    const problems: string[] = [];
    // Warm both sides (worker start, JIT) with values no round uses.
    const warm = {
      teeth: 12,
      module: 1,
      thickness: 3,
      hubDiameter: 10,
      hubHeight: 0,
      boreDiameter: 3,
    };
    for (let i = 0; i < 3; i++) buildGear(wasm, { ...warm, thickness: 3 + i });
    for (let i = 0; i < 3; i++) {
      await renderOnce(kernel.target, kernel.example.finish({ ...warm, thickness: 3 + i }));
    }
    let round = 0;
    let checked = false;
    const figures = await alternateRounds(
      ROUNDS,
      () => {
        const t0 = performance.now();
        const out = buildGear(wasm, gearValuesFor(round));
        const ms = performance.now() - t0;
        if (!(out.triangles > 0)) problems.push(`round ${round}: direct build made no triangles`);
        return Promise.resolve({ ms, triangles: out.triangles });
      },
      async () => {
        const dag = kernel.example.finish({ ...gearValuesFor(round) });
        const t0 = performance.now();
        const { body } = await renderOnce(kernel.target, dag);
        const ms = performance.now() - t0;
        if (body.cache !== "miss") {
          problems.push(`round ${round}: expected a miss, got ${body.cache}`);
        }
        return { ms, triangles: body.scene.triangles };
      },
      (r, b, c) => {
        if (b.triangles !== c.triangles && !checked) {
          problems.push(
            `round ${r}: not the same model (${b.triangles} vs ${c.triangles} triangles)`,
          );
        }
        checked = true;
        progress(
          `render-cold round ${r}: direct ${b.ms.toFixed(1)} ms, server ${c.ms.toFixed(1)} ms`,
        );
        round++;
      },
    );
    const b = median(figures.baseline.map((x) => x.ms));
    const c = median(figures.candidate.map((x) => x.ms));
    return {
      title: "render-cold",
      unit: "ms",
      decimals: 1,
      lowerIsBetter: true,
      pairedRatio: median(figures.candidate.map((x, i) => x.ms / figures.baseline[i].ms)),
      baseline: { label: "direct manifold-3d", value: b },
      candidate: { label: "cold HTTP render", value: c },
      target: TARGET,
      summary: `spur-gear, ${figures.baseline[0].triangles}+ triangles, median of ${ROUNDS} ` +
        `rounds, each with new values (server: miss in L1 and L2)`,
      details: [
        `ratio of the medians ${
          (median(figures.candidate.map((x) => x.ms)) / median(figures.baseline.map((x) => x.ms)))
            .toFixed(2)
        }; per-round ratios ${
          figures.candidate.map((x, i) => (x.ms / figures.baseline[i].ms).toFixed(2)).join(" ")
        }`,
        `direct ms: ${figures.baseline.map((x) => x.ms.toFixed(1)).join(" ")}`,
        `server ms: ${figures.candidate.map((x) => x.ms.toFixed(1)).join(" ")}`,
      ],
      problems,
    };
  } finally {
    await kernel.close();
  }
}

/** Cold render wall time over HTTP ÷ building the same model with manifold-3d; target ≤ 1.15. */
export const renderColdBench: Benchmark = {
  name: "render-cold",
  description:
    "cold POST /v1/kernels/manifold/render vs the same gear built directly with manifold-3d",
  run,
};
