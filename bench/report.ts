/** Turns benchmark results into the report lines `bench/main.ts` prints. */
import type { BenchResult } from "./benchmark.ts";

/** A verdict: the ratio meets the target, misses it, or the figures are not trustworthy. */
export type Verdict = "PASS" | "BELOW" | "INVALID";

/** Formats a throughput as a grouped integer, e.g. `12,345`. */
export function formatRate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a";
}

/** The candidate ÷ baseline ratio of `result`. */
export function ratioOf(result: BenchResult): number {
  return result.candidate.value / result.baseline.value;
}

/** Whether `result` meets its target (problems make it INVALID whatever the ratio). */
export function verdictOf(result: BenchResult): Verdict {
  if (result.problems.length > 0) return "INVALID";
  return ratioOf(result) >= result.target ? "PASS" : "BELOW";
}

/** The report lines for one result; `letter` is its position in the full benchmark list. */
export function formatResult(letter: string, result: BenchResult): string[] {
  const { baseline, candidate, unit } = result;
  const head = `  (${letter}) ${result.title.padEnd(8)} ` +
    `${baseline.label} ${formatRate(baseline.value)} ${unit}   ` +
    `${candidate.label} ${formatRate(candidate.value)} ${unit}   ` +
    `ratio ${ratioOf(result).toFixed(2)} (target ≥ ${result.target}) ${verdictOf(result)}` +
    (result.summary ? `   [${result.summary}]` : "");
  return [
    head,
    ...result.details.map((line) => `        ${line}`),
    ...result.problems.map((line) => `        INVALID: ${line}`),
  ];
}
