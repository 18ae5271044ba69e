/**
 * `deno task bench [name…]`: runs the benchmarks (all, or those named) and prints, for each, the
 * baseline and candidate figures measured in the same run, their ratio, the target and a verdict.
 * Progress goes to stderr, the report to stdout. Exits 1 when a benchmark fails or is INVALID;
 * a ratio that misses its target (BELOW a minimum, ABOVE a maximum) is a finding, not a failure.
 */
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { browserBench } from "./browser_bench.ts";
import { colorPickBench, sliderCachedBench, sliderUncachedBench } from "./slider_floor.ts";
import { firstModelBench, firstModelJsBench } from "./first_model_bench.ts";
import { mintBench } from "./mint_bench.ts";
import { formatResult, verdictOf } from "./report.ts";
import { verifyBench } from "./verify_bench.ts";
import { renderHitBench } from "./render_hit_bench.ts";
import { renderColdBench } from "./render_cold_bench.ts";
import { renderBytesBench } from "./render_bytes_bench.ts";
import { renderFlightBench } from "./render_flight_bench.ts";
import { renderCapacityBench } from "./render_capacity_bench.ts";
import { renderMemoryBench } from "./render_memory_bench.ts";
import { renderReuseBench } from "./render_reuse_bench.ts";

/** Every benchmark in report order; later parts (render, browser) are appended here. */
export const BENCHMARKS: readonly Benchmark[] = [
  verifyBench,
  mintBench,
  renderHitBench,
  renderColdBench,
  renderBytesBench,
  renderFlightBench,
  renderCapacityBench,
  renderMemoryBench,
  renderReuseBench,
  browserBench,
  sliderCachedBench,
  sliderUncachedBench,
  colorPickBench,
  firstModelBench,
  firstModelJsBench,
];

/** The benchmarks named by `filters` (all when empty); throws on a name that matches none. */
export function selectBenchmarks(
  all: readonly Benchmark[],
  filters: readonly string[],
): Benchmark[] {
  if (filters.length === 0) return [...all];
  const unknown = filters.filter((f) => !all.some((b) => b.name === f));
  if (unknown.length > 0) {
    throw new Error(
      `unknown benchmark ${unknown.join(", ")}; choose from ${all.map((b) => b.name).join(", ")}`,
    );
  }
  return all.filter((b) => filters.includes(b.name));
}

function letterOf(benchmark: Benchmark): string {
  return String.fromCharCode(97 + BENCHMARKS.indexOf(benchmark));
}

async function main(args: string[]): Promise<number> {
  let selected: Benchmark[];
  try {
    selected = selectBenchmarks(BENCHMARKS, args);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const progress = (line: string) => console.error(`  … ${line}`);
  const lines: string[] = [];
  let failed = false;
  const started = performance.now();
  for (const benchmark of selected) {
    progress(`${benchmark.name}: ${benchmark.description}`);
    let result: BenchResult;
    try {
      result = await benchmark.run(progress);
    } catch (err) {
      failed = true;
      lines.push(
        `  (${letterOf(benchmark)}) ${benchmark.name.padEnd(10)} FAILED: ${
          (err as Error).stack ?? err
        }`,
      );
      continue;
    }
    if (verdictOf(result) === "INVALID") failed = true;
    lines.push(...formatResult(letterOf(benchmark), result));
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `bench: ${
      selected.map((b) => b.name).join(", ")
    }  (deno ${Deno.version.deno}, V8 ${Deno.version.v8}, ${navigator.hardwareConcurrency} CPUs, ${seconds} s)`,
  );
  for (const line of lines) console.log(line);
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
