/**
 * Cache-hit renders over HTTP against the real kernel-api (`startServer`, file-backed KV, real
 * Redis: token check, revocation, origin, template instance, budget script, L1 hit, response)
 * versus a bare `Deno.serve` doing one Redis INCR and answering the same bytes. Both are served
 * from this process and driven by the same load generator (`load.ts`, a separate process) at the
 * same concurrency, alternating for a few rounds.
 */
import { type BareRenderServer, startBareRenderServer } from "./bare_render_server.ts";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { type LoadResult, type LoadSpec, runLoad } from "./load.ts";
import {
  BENCH_REDIS_URL,
  type RenderBenchServer,
  startRenderBenchServer,
} from "./render_fixture.ts";
import { formatRate } from "./report.ts";
import { alternateRounds } from "./rounds.ts";
import { median } from "./stats.ts";

const EXAMPLE = "spur-gear";
const CONCURRENCY = 32;
const WARMUP_SECONDS = 1;
const DURATION_SECONDS = 5;
const ROUNDS = 3;
const TARGET = 0.75;

function describe(r: LoadResult): string {
  const failures = Object.entries(r.failures).map(([k, v]) => `${k}×${v}`).join(" ");
  return `${formatRate(r.rps)} req/s (p50 ${r.p50ms} ms, p99 ${r.p99ms} ms` +
    (r.errors || failures ? `, ${r.errors} errors${failures ? ` [${failures}]` : ""}` : "") + ")";
}

function roundProblems(side: string, round: number, r: LoadResult): string[] {
  const total = Object.values(r.failures).reduce((a, b) => a + b, 0);
  if (r.errors === 0 && total === 0) return [];
  return [
    `${side} round ${round}: ${total} non-2xx (${JSON.stringify(r.failures)}); ` +
    `e.g. ${r.sampleError ?? "?"}`,
  ];
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  let kernel: RenderBenchServer | undefined;
  let bare: BareRenderServer | undefined;
  try {
    kernel = await startRenderBenchServer(EXAMPLE);
    const body = JSON.stringify({ dag: kernel.example.finish() });
    // The first render evaluates; the second is the L1 hit whose bytes the baseline answers.
    const send = () =>
      fetch(kernel!.target.url, { method: "POST", headers: kernel!.target.headers, body });
    await (await send()).text();
    const hit = await send();
    const hitText = await hit.text();
    if (hit.status !== 200 || JSON.parse(hitText).cache !== "l1") {
      throw new Error(`expected an L1 hit, got ${hit.status}: ${hitText.slice(0, 300)}`);
    }
    const bytes = new TextEncoder().encode(hitText);
    bare = await startBareRenderServer({
      redisUrl: BENCH_REDIS_URL,
      counterKey: `${kernel.prefix}bare:renders`,
      body: bytes,
    });
    const load = {
      method: "POST",
      headers: kernel.target.headers,
      body,
      concurrency: CONCURRENCY,
      warmupSeconds: WARMUP_SECONDS,
      durationSeconds: DURATION_SECONDS,
    };
    const baselineSpec: LoadSpec = { ...load, url: bare.url };
    const candidateSpec: LoadSpec = { ...load, url: kernel.target.url };
    for (const spec of [baselineSpec, candidateSpec]) {
      const primed = await runLoad({ ...spec, warmupSeconds: 0, durationSeconds: 1 });
      progress(`render-hit priming ${spec.url}: ${describe(primed)}`);
    }
    const details: string[] = [];
    const problems: string[] = [];
    const rounds = await alternateRounds(
      ROUNDS,
      () => runLoad(baselineSpec),
      () => runLoad(candidateSpec),
      (round, b, c) => {
        const line = `round ${round}: bare ${describe(b)}, kernel ${describe(c)}, ratio ${
          (c.rps / b.rps).toFixed(2)
        }`;
        details.push(line);
        problems.push(...roundProblems("bare", round, b), ...roundProblems("kernel", round, c));
        progress(`render-hit ${line}`);
      },
    );
    const p = (side: LoadResult[], key: "p50ms" | "p99ms") =>
      median(side.map((r) => r[key])).toFixed(1);
    return {
      title: "render-hit",
      unit: "req/s",
      baseline: { label: "bare INCR+bytes", value: median(rounds.baseline.map((r) => r.rps)) },
      candidate: { label: "L1-hit render", value: median(rounds.candidate.map((r) => r.rps)) },
      target: TARGET,
      summary: `${EXAMPLE}, ${bytes.byteLength} B responses, c=${CONCURRENCY}, ` +
        `${DURATION_SECONDS} s × ${ROUNDS} rounds, p50 ${p(rounds.baseline, "p50ms")}/${
          p(rounds.candidate, "p50ms")
        } ms, p99 ${p(rounds.baseline, "p99ms")}/${p(rounds.candidate, "p99ms")} ms (bare/kernel)`,
      details,
      problems,
    };
  } finally {
    await bare?.close();
    const removed = await kernel?.close();
    progress(`render-hit cleanup: deleted ${removed ?? 0} Redis keys`);
  }
}

/** L1-hit render req/s over HTTP ÷ a bare INCR-and-same-bytes `Deno.serve`; target ≥ 0.75. */
export const renderHitBench: Benchmark = {
  name: "render-hit",
  description:
    "POST /v1/kernels/manifold/render (L1 hit) vs bare Deno.serve (one INCR, same bytes)",
  run,
};
