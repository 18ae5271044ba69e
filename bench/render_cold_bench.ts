/**
 * A cold render over HTTP through the whole kernel-api (token, origin, template instance, budget,
 * L1 and L2 misses, evaluation on a warm worker, mesh hashing and encoding, the JSON response)
 * versus building the same spur gear directly with manifold-3d in this thread. Each round uses new
 * parameter values (so the server misses both cache levels) and the same values on every side;
 * the order of the sides rotates. A third side, the floor (`floor_render_server.ts`: HTTP, one
 * Redis INCR, the same gear built on a worker, the same mesh encoding, nothing else), shows what
 * the mandated architecture alone costs on this machine.
 */
import type { Benchmark, BenchResult } from "./benchmark.ts";
import type { Dag } from "../lib/dag/dag_types.ts";
import {
  buildGear,
  type GearValues,
  gearValuesFor,
  loadManifold,
  WARM_RENDERS,
  warmGearValues,
} from "./direct_gear.ts";
import { startFloorRenderServer } from "./floor_render_server.ts";
import {
  BENCH_REDIS_URL,
  type RenderBody,
  renderOnce,
  startRenderBenchServer,
} from "./render_fixture.ts";
import { rotateRounds } from "./rounds.ts";
import { median } from "./stats.ts";

const ROUNDS = 101;
const TARGET = 1.08;

/** What a round reads from a render answer, the kernel's or the floor's. */
type RenderedBody = Pick<RenderBody, "cache" | "scene">;

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const kernel = await startRenderBenchServer("spur-gear");
  const floor = await startFloorRenderServer({
    redisUrl: BENCH_REDIS_URL,
    counterKey: `${kernel.prefix}floor:renders`,
  });
  const floorRender = async (values: GearValues, dag: unknown): Promise<RenderedBody> => {
    const res = await fetch(floor.url, {
      method: "POST",
      headers: kernel.target.headers,
      body: JSON.stringify({ values, dag }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`the floor answered ${res.status}: ${text}`);
    return JSON.parse(text) as RenderedBody;
  };
  try {
    const wasm = await loadManifold();
    const problems: string[] = [];
    // Warm every side (worker start, JIT) with values no round uses.
    for (let i = 0; i < WARM_RENDERS; i++) {
      const values = warmGearValues(i);
      const dag = kernel.example.finish({ ...values });
      buildGear(wasm, values);
      await renderOnce(kernel.target, dag);
      await floorRender(values, dag);
    }
    let round = 0;
    /** One render of this round's values through `send`, timed from the request to the body. */
    const served = async (send: (values: GearValues, dag: unknown) => Promise<RenderedBody>) => {
      const values = gearValuesFor(round);
      const dag = kernel.example.finish({ ...values });
      const t0 = performance.now();
      const body = await send(values, dag);
      const ms = performance.now() - t0;
      return { ms, triangles: body.scene.triangles, volume: body.scene.volume, cache: body.cache };
    };
    const [direct, floorSide, server] = await rotateRounds(
      ROUNDS,
      [
        () => {
          const t0 = performance.now();
          const out = buildGear(wasm, gearValuesFor(round));
          const ms = performance.now() - t0;
          return Promise.resolve({ ms, triangles: out.triangles, volume: out.volume, cache: "" });
        },
        () => served(floorRender),
        () => served(async (_, dag) => (await renderOnce(kernel.target, dag as Dag)).body),
      ],
      (r, [b, f, c]) => {
        if (!(b.triangles > 0)) problems.push(`round ${r}: direct build made no triangles`);
        for (const [side, x] of [["floor", f], ["server", c]] as const) {
          if (x.cache !== "miss") problems.push(`round ${r}: ${side} answered ${x.cache}`);
          // The kernel places repeated teeth by matrix, not manifold's rotate(): the same solid
          // up to float rounding, so the triangulation may differ by a few triangles.
          if (!(Math.abs(x.volume - b.volume) <= b.volume * 1e-4)) {
            problems.push(
              `round ${r}: ${side} built another model (volume ${x.volume} vs ${b.volume})`,
            );
          }
        }
        progress(
          `render-cold round ${r}: direct ${b.ms.toFixed(1)} ms, floor ${f.ms.toFixed(1)} ms, ` +
            `server ${c.ms.toFixed(1)} ms`,
        );
        round++;
      },
    );
    const figures = { baseline: direct, candidate: server };
    const b = median(direct.map((x) => x.ms));
    const c = median(server.map((x) => x.ms));
    const pairedFloor = median(floorSide.map((x, i) => x.ms / direct[i].ms));
    return {
      title: "render-cold",
      unit: "ms",
      decimals: 1,
      lowerIsBetter: true,
      pairedRatio: median(figures.candidate.map((x, i) => x.ms / figures.baseline[i].ms)),
      baseline: { label: "direct manifold-3d", value: b },
      candidate: { label: "cold HTTP render", value: c },
      floor: {
        label: "bare Deno.serve + Redis INCR + worker build + mesh encoding",
        value: median(floorSide.map((x) => x.ms)),
        ratio: pairedFloor,
        candidateRatio: median(server.map((x, i) => x.ms / floorSide[i].ms)),
      },
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
        `floor ms: ${floorSide.map((x) => x.ms.toFixed(1)).join(" ")}`,
        `server ms: ${figures.candidate.map((x) => x.ms.toFixed(1)).join(" ")}`,
      ],
      problems,
    };
  } finally {
    await floor.close();
    await kernel.close();
  }
}

/** Cold render wall time over HTTP ÷ the floor's (bare server, INCR, worker build); target ≤ 1.08. */
export const renderColdBench: Benchmark = {
  name: "render-cold",
  description:
    "cold POST /v1/kernels/manifold/render vs the same gear built directly with manifold-3d",
  run,
};
