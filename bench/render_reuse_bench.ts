/**
 * Reuse between renders (docs/dag.md): a shopper's one-parameter drags on the spur gear, over HTTP,
 * against the same kernel-api with reuse turned off (`RENDER_REUSE_TRIANGLES=0`), in the same run.
 * Each session starts from a configuration no other session uses, then changes one parameter 8
 * times; every render is a miss in L1 and L2, so each answer waits on an evaluation. The verdict
 * is on changes 3–8 of the bore and color drags — earlier sessions fill the cache, and a full cache
 * keeps a solid on its key's second sighting, so changes 1–2 are misses on both sides and are
 * printed apart — and the hub-height drag, which reaches the gear's body and can reuse nothing,
 * shows what reuse costs when it cannot help. The sides alternate which goes first from step to step.
 */
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { type RenderBenchServer, renderOnce, startRenderBenchServer } from "./render_fixture.ts";
import { median } from "./stats.ts";

const SESSIONS = 14;
const CHANGES = 8;
/** Changes before a kept solid can be taken, once the cache is full: the first sighting, then the
 * keeping miss. */
const WARMING = 2;
const TARGET = 0.5;

const COLORS = [
  "#222222",
  "#f2f2f2",
  "#3a7d44",
  "#c9a227",
  "#aa3322",
  "#2255aa",
  "#777777",
  "#eeee00",
];

/** A drag: the values of change `k` of session `j`. */
interface Drag {
  name: string;
  reusable: boolean;
  values(j: number, k: number): Record<string, unknown>;
}

const DRAGS: Drag[] = [
  {
    name: "bore",
    reusable: true,
    values: (j, k) => ({ teeth: 20 + j, thickness: 10, boreDiameter: 6 + k * 0.5 }),
  },
  {
    name: "color",
    reusable: true,
    values: (j, k) => ({ teeth: 20 + j, thickness: 11, color: COLORS[k] }),
  },
  {
    name: "hub height",
    reusable: false,
    values: (j, k) => ({ teeth: 20 + j, thickness: 12, hubHeight: 4 + k * 0.5 }),
  },
];

/** Per side, per drag: the warming changes' and the later changes' times (ms). */
type Times = Record<"on" | "off", Record<string, { warming: number[]; later: number[] }>>;

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const on = await startRenderBenchServer("spur-gear", { RENDER_WORKERS: "1" });
  const off = await startRenderBenchServer("spur-gear", {
    RENDER_WORKERS: "1",
    RENDER_REUSE_TRIANGLES: "0",
  });
  const problems: string[] = [];
  try {
    // JIT and workers warm with gears no session uses (module 1).
    for (let i = 0; i < 60; i++) {
      for (const side of [on, off]) {
        const values = { module: 1, teeth: 12 + (i % 30), thickness: 3 + Math.floor(i / 30) };
        await renderOnce(side.target, side.example.finish(values));
      }
    }
    const times: Times = { on: {}, off: {} };
    let step = 0;
    for (const drag of DRAGS) {
      for (const side of ["on", "off"] as const) {
        times[side][drag.name] = { warming: [], later: [] };
      }
      for (let j = 0; j < SESSIONS; j++) {
        for (let k = 0; k < CHANGES; k++) {
          const order: ["on" | "off", RenderBenchServer][] = step++ % 2
            ? [["on", on], ["off", off]]
            : [["off", off], ["on", on]];
          for (const [label, side] of order) {
            const dag = side.example.finish(drag.values(j, k));
            const t0 = performance.now();
            const { body } = await renderOnce(side.target, dag);
            const ms = performance.now() - t0;
            if (body.cache !== "miss") {
              problems.push(`${drag.name} ${j}/${k} (${label}): ${body.cache}`);
            }
            const at = times[label][drag.name];
            (k < WARMING ? at.warming : at.later).push(ms);
          }
        }
      }
      const line = (side: "on" | "off") =>
        `${median(times[side][drag.name].later).toFixed(1)} ms (changes 1–${WARMING}: ` +
        `${median(times[side][drag.name].warming).toFixed(1)})`;
      progress(`render-reuse ${drag.name}: reuse on ${line("on")}, off ${line("off")}`);
    }
    const later = (side: "on" | "off", reusable: boolean) =>
      DRAGS.filter((d) => d.reusable === reusable).flatMap((d) => times[side][d.name].later);
    const candidate = median(later("on", true));
    const baseline = median(later("off", true));
    const idleRatio = median(later("on", false)) / median(later("off", false));
    return {
      title: "render-reuse",
      unit: "ms",
      decimals: 1,
      lowerIsBetter: true,
      baseline: { label: "cold render, reuse off", value: baseline },
      candidate: { label: "cold render, reuse on", value: candidate },
      target: TARGET,
      summary:
        `spur-gear over HTTP, 1 worker each, ${SESSIONS} sessions × ${CHANGES} changes per ` +
        `drag; verdict on changes ${WARMING + 1}–${CHANGES} of the bore and color drags (p50)`,
      details: [
        ...DRAGS.map((d) =>
          `${d.name}: changes ${WARMING + 1}–${CHANGES} on ${
            median(times.on[d.name].later).toFixed(1)
          } / off ${median(times.off[d.name].later).toFixed(1)} ms; changes 1–${WARMING} on ${
            median(times.on[d.name].warming).toFixed(1)
          } / off ${median(times.off[d.name].warming).toFixed(1)} ms`
        ),
        `a drag that reuses nothing (hub height), on ÷ off: ${idleRatio.toFixed(2)}`,
      ],
      problems,
    };
  } finally {
    await on.close();
    await off.close();
  }
}

/** One-parameter drags with reuse between renders ÷ without; target ≤ 0.5. */
export const renderReuseBench: Benchmark = {
  name: "render-reuse",
  description: "spur-gear bore and color drags over HTTP, reuse between renders on vs off",
  run,
};
