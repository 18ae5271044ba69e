/**
 * What a benchmark module exports, and what it hands back: a baseline and a candidate measured in
 * the same run, so the ratio between them means something even on a noisy machine.
 */

/** One measured side of a comparison. */
export interface Side {
  /** What was measured, e.g. "raw WebCrypto". */
  label: string;
  /** The median throughput over the rounds. */
  value: number;
}

/**
 * The floor of a comparison: the least any implementation of what the issue mandates can cost on
 * this machine (a bare server doing only the mandated steps), measured in the same rounds. It
 * tells a target the machine cannot meet from overhead the product could still remove.
 */
export interface Floor {
  /** What the floor server does, e.g. "bare Deno.serve + Redis INCR + worker build". */
  label: string;
  /** Its median figure, in the result's unit. */
  value: number;
  /** Floor ÷ baseline, computed the way the candidate's ratio is (paired when that one is). */
  ratio: number;
  /**
   * Candidate ÷ floor (the median of per-round ratios where the bench pairs them): when a result
   * has a floor, its target applies to this ratio — what the product adds over the least any
   * implementation costs here — not to candidate ÷ baseline.
   */
  candidateRatio: number;
}

/** A baseline/candidate comparison with its target ratio. */
export interface BenchResult {
  /** Short name shown in the report, e.g. "verify". */
  title: string;
  /** Throughput unit, e.g. "ops/s". */
  unit: string;
  baseline: Side;
  candidate: Side;
  /**
   * The least acceptable candidate ÷ baseline ratio, or (with `lowerIsBetter`) the greatest: for
   * times, bytes and memory the candidate should stay under a multiple of the baseline. With a
   * `floor`, the bound on candidate ÷ floor instead.
   */
  target: number;
  /**
   * The ratio to judge, when it is not `candidate.value / baseline.value`: e.g. the median of
   * per-round ratios, which a noisy machine disturbs less than a ratio of medians (the two sides
   * of a round run back to back, under the same load).
   */
  pairedRatio?: number;
  /** The ratio passes when ≤ target instead of ≥ target. */
  lowerIsBetter?: boolean;
  /** Decimals to print the figures with (default 0). */
  decimals?: number;
  /** Run parameters and latencies, shown after the verdict in brackets. */
  summary?: string;
  /** The floor, when the benchmark measures one (shown under the verdict line). */
  floor?: Floor;
  /** Per-round figures, shown under the verdict line. */
  details: string[];
  /** Why the figures cannot be trusted (e.g. non-2xx responses); any entry makes it INVALID. */
  problems: string[];
}

/** A runnable benchmark; `bench/main.ts` lists them and filters them by `name`. */
export interface Benchmark {
  /** Filter key on the command line (`deno task bench <name>`). */
  name: string;
  /** One line on what is compared. */
  description: string;
  /** Runs the benchmark; `progress` receives status lines while it runs. */
  run(progress: (line: string) => void): Promise<BenchResult>;
}
