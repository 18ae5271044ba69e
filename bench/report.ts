/** Turns benchmark results into the report lines `bench/main.ts` prints. */
import type { BenchResult } from "./benchmark.ts";

/**
 * A verdict: the ratio meets the target, misses it (BELOW a minimum, ABOVE a maximum), or the
 * figures are not trustworthy.
 */
export type Verdict = "PASS" | "BELOW" | "ABOVE" | "INVALID";

/** Formats a throughput as a grouped integer, e.g. `12,345`. */
export function formatRate(value: number, decimals = 0): string {
  if (!Number.isFinite(value)) return "n/a";
  return value.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

/** The candidate ÷ baseline ratio of `result` (its paired ratio when it has one). */
export function ratioOf(result: BenchResult): number {
  return result.pairedRatio ?? result.candidate.value / result.baseline.value;
}

/** The ratio the target applies to: candidate ÷ floor when there is a floor, else `ratioOf`. */
export function judgedRatioOf(result: BenchResult): number {
  return result.floor ? result.floor.candidateRatio : ratioOf(result);
}

/** Whether `result` meets its target (problems make it INVALID whatever the ratio). */
export function verdictOf(result: BenchResult): Verdict {
  if (result.problems.length > 0) return "INVALID";
  if (meets(judgedRatioOf(result), result)) return "PASS";
  return result.lowerIsBetter ? "ABOVE" : "BELOW";
}

/** Whether `ratio` is on the right side of `result`'s target. */
function meets(ratio: number, result: BenchResult): boolean {
  return result.lowerIsBetter ? ratio <= result.target : ratio >= result.target;
}

/**
 * A judged ratio as printed: two decimals, or three when two would show the target itself for a
 * ratio that is not exactly it, so the figure shows the side the verdict is on (render-memory's
 * 1.2024 reads "1.202 … ABOVE", not "1.20 … ABOVE").
 *
 * @example
 * ```ts
 * judgedRatioText(1.2024, 1.2); // "1.202"
 * judgedRatioText(1.1986, 1.2); // "1.199"
 * judgedRatioText(1.137, 1.08); // "1.14"
 * ```
 */
export function judgedRatioText(ratio: number, target: number): string {
  const short = ratio.toFixed(2);
  return Number(short) === target && ratio !== target ? ratio.toFixed(3) : short;
}

/**
 * The report lines for one result; `letter` is its position in the full benchmark list. With a
 * floor: the absolute figures and candidate ÷ baseline on the first line, then the floor's figure,
 * floor ÷ baseline, candidate ÷ floor and the verdict on the second.
 */
export function formatResult(letter: string, result: BenchResult): string[] {
  const { baseline, candidate, unit, decimals } = result;
  const bound = result.lowerIsBetter ? "≤" : "≥";
  const paired = result.pairedRatio === undefined ? "" : " (median of rounds)";
  const floor = result.floor;
  const verdict = `(target ${bound} ${result.target}) ${verdictOf(result)}`;
  const judged = judgedRatioText(judgedRatioOf(result), result.target);
  const head = `  (${letter}) ${result.title.padEnd(8)} ` +
    `${baseline.label} ${formatRate(baseline.value, decimals)} ${unit}   ` +
    `${candidate.label} ${formatRate(candidate.value, decimals)} ${unit}   ` +
    `ratio ${floor ? ratioOf(result).toFixed(2) : judged}${paired}` + (floor ? "" : ` ${verdict}`) +
    (result.summary ? `   [${result.summary}]` : "");
  return [
    head,
    ...(floor
      ? [
        `        floor: ${floor.label} ${formatRate(floor.value, decimals)} ${unit}, floor ratio ` +
        `${floor.ratio.toFixed(2)}; product ÷ floor ${judged}${paired} ` +
        verdict,
      ]
      : []),
    ...result.details.map((line) => `        ${line}`),
    ...result.problems.map((line) => `        INVALID: ${line}`),
  ];
}
