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

/** A baseline/candidate comparison with its target ratio. */
export interface BenchResult {
  /** Short name shown in the report, e.g. "verify". */
  title: string;
  /** Throughput unit, e.g. "ops/s". */
  unit: string;
  baseline: Side;
  candidate: Side;
  /** The least acceptable candidate ÷ baseline ratio. */
  target: number;
  /** Run parameters and latencies, shown after the verdict in brackets. */
  summary?: string;
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
