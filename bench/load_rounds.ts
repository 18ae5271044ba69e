/**
 * The HTTP throughput comparison shared by the mint and render-hit benchmarks: one short uncounted
 * run per side (so round 1 does not pay for either server's JIT warm-up), then alternating rounds
 * of the load generator against the baseline and the candidate, with a line per round.
 */
import { type LoadResult, type LoadSpec, runLoad } from "./load.ts";
import { formatRate } from "./report.ts";
import { alternateRounds } from "./rounds.ts";
import { median } from "./stats.ts";

/** What `compareUnderLoad` measured. */
export interface LoadComparison {
  baseline: LoadResult[];
  candidate: LoadResult[];
  /** One line per round: both sides and their ratio. */
  details: string[];
  /** Non-2xx answers and failed fetches, per side and round (empty when all succeeded). */
  problems: string[];
}

/** What to compare: the bench name (for progress lines) and each side's label and spec. */
export interface LoadComparisonSpec {
  name: string;
  baseline: { label: string; spec: LoadSpec };
  candidate: { label: string; spec: LoadSpec };
  rounds: number;
  primingSeconds: number;
}

/**
 * Primes both sides, then runs `rounds` alternating load rounds.
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
  const { name, baseline, candidate } = spec;
  for (const side of [baseline, candidate]) {
    const primed = await runLoad({
      ...side.spec,
      warmupSeconds: 0,
      durationSeconds: spec.primingSeconds,
    });
    progress(`${name} priming ${side.spec.url}: ${describeLoad(primed)}`);
  }
  const details: string[] = [];
  const problems: string[] = [];
  const rounds = await alternateRounds(
    spec.rounds,
    () => runLoad(baseline.spec),
    () => runLoad(candidate.spec),
    (round, b, c) => {
      const line = `round ${round}: ${baseline.label} ${describeLoad(b)}, ${candidate.label} ${
        describeLoad(c)
      }, ratio ${(c.rps / b.rps).toFixed(2)}`;
      details.push(line);
      problems.push(
        ...roundProblems(baseline.label, round, b),
        ...roundProblems(candidate.label, round, c),
      );
      progress(`${name} ${line}`);
    },
  );
  return { ...rounds, details, problems };
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
