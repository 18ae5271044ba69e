/**
 * The HTTP throughput comparison shared by the mint and render-hit benchmarks: one short uncounted
 * run per side (so round 1 does not pay for any server's JIT warm-up), then rounds of the load
 * generator against the baseline, the candidate and, when given, a floor server, in an order that
 * rotates from round to round, with a line per round; given a `CpuMeter`, also the CPU each side
 * spent over its rounds per request answered.
 */
import { addCpuDelta, type CpuMeter, type CpuUse } from "./cpu_time.ts";
import { type LoadResult, type LoadSpec, runLoad } from "./load.ts";
import { formatRate } from "./report.ts";
import { rotateRounds } from "./rounds.ts";
import { median } from "./stats.ts";

/** What `compareUnderLoad` measured. */
export interface LoadComparison {
  baseline: LoadResult[];
  candidate: LoadResult[];
  /** The floor's rounds, when the spec has a floor (else empty). */
  floor: LoadResult[];
  /** One line per round: both sides and their ratio. */
  details: string[];
  /** Non-2xx answers and failed fetches, per side and round (empty when all succeeded). */
  problems: string[];
  /** CPU of the rounds per side label, with the requests answered (empty without a meter). */
  cpu: Record<string, CpuUse>;
}

/** What to compare: the bench name (for progress lines) and each side's label and spec. */
export interface LoadComparisonSpec {
  name: string;
  baseline: { label: string; spec: LoadSpec };
  candidate: { label: string; spec: LoadSpec };
  /** A third server measured in the same rounds (see `Floor` in benchmark.ts). */
  floor?: { label: string; spec: LoadSpec };
  rounds: number;
  primingSeconds: number;
  /** Reads CPU time around each side's rounds (this process's threads, the Redis server). */
  cpu?: CpuMeter;
}

/**
 * Primes every side, then runs `rounds` rounds of load against each, in rotating order.
 *
 * @example
 * ```ts
 * const c = await compareUnderLoad({ name: "mint", baseline, candidate, rounds: 3, primingSeconds: 1 }, progress);
 * ```
 */
export async function compareUnderLoad(
  spec: LoadComparisonSpec,
  progress: (line: string) => void,
): Promise<LoadComparison> {
  const { name, baseline, candidate, floor } = spec;
  const sides = floor ? [baseline, candidate, floor] : [baseline, candidate];
  for (const side of sides) {
    const primed = await runLoad({
      ...side.spec,
      warmupSeconds: 0,
      durationSeconds: spec.primingSeconds,
    });
    progress(`${name} priming ${side.spec.url}: ${describeLoad(primed)}`);
  }
  const details: string[] = [];
  const problems: string[] = [];
  const cpu: Record<string, CpuUse> = {};
  const measured = async (side: { label: string; spec: LoadSpec }) => {
    const before = spec.cpu?.sample();
    const result = await runLoad(side.spec);
    const after = spec.cpu?.sample();
    if (before && after) {
      const use = cpu[side.label] ??= { cpu: {}, units: 0 };
      addCpuDelta(use.cpu, before, after);
      use.units += result.answered;
    }
    return result;
  };
  const [b, c, f = []] = await rotateRounds(
    spec.rounds,
    sides.map((side) => () => measured(side)),
    (round, results) => {
      const [rb, rc] = results;
      const line =
        `round ${round}: ${
          sides.map((side, k) => `${side.label} ${describeLoad(results[k])}`).join(", ")
        }, ratio ${(rc.rps / rb.rps).toFixed(2)}` +
        (floor ? `, floor ratio ${(results[2].rps / rb.rps).toFixed(2)}` : "");
      details.push(line);
      sides.forEach((side, k) => problems.push(...roundProblems(side.label, round, results[k])));
      progress(`${name} ${line}`);
    },
  );
  return { baseline: b, candidate: c, floor: f, details, problems, cpu };
}

/** "p50 b/c ms, p99 b/c ms": the medians over rounds of each side's latency percentiles. */
export function latencyMedians(c: LoadComparison): string {
  const p = (side: LoadResult[], key: "p50ms" | "p99ms") =>
    median(side.map((r) => r[key])).toFixed(1);
  return `p50 ${p(c.baseline, "p50ms")}/${p(c.candidate, "p50ms")} ms, ` +
    `p99 ${p(c.baseline, "p99ms")}/${p(c.candidate, "p99ms")} ms`;
}

/** One load result as "N req/s (p50 …, p99 …[, errors])". */
export function describeLoad(r: LoadResult): string {
  const failures = Object.entries(r.failures).map(([k, v]) => `${k}×${v}`).join(" ");
  return `${formatRate(r.rps)} req/s (p50 ${r.p50ms} ms, p99 ${r.p99ms} ms` +
    (r.errors || failures ? `, ${r.errors} errors${failures ? ` [${failures}]` : ""}` : "") + ")";
}

function roundProblems(side: string, round: number, r: LoadResult): string[] {
  const total = Object.values(r.failures).reduce((a, b) => a + b, 0);
  if (r.errors === 0 && total === 0) return [];
  return [
    `${side} round ${round}: ${r.errors} non-2xx in the window, ${total} in all ` +
    `(${JSON.stringify(r.failures)}); e.g. ${r.sampleError ?? "?"}`,
  ];
}
