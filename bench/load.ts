/**
 * The HTTP load generator: `concurrency` fetch loops against one URL, a warm-up whose responses
 * are not counted, then a fixed measuring window. It runs as its own Deno process (`runLoad`
 * spawns it) so the client's CPU is not the server's event loop, and prints one JSON line:
 * `{requests, errors, seconds, rps, p50ms, p99ms, …}`.
 *
 * `deno run -A bench/load.ts '<LoadSpec as JSON>'`
 */
import { fileURLToPath } from "node:url";
import { percentileOfSorted } from "./stats.ts";

/** One load run: where to send what, how hard and for how long. */
export interface LoadSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Concurrent request loops (each waits for its response before sending the next). */
  concurrency: number;
  warmupSeconds: number;
  durationSeconds: number;
}

/** What one load run measured; only responses completed inside the window count. */
export interface LoadResult {
  /** 2xx responses completed in the window. */
  requests: number;
  /** Non-2xx responses and failed fetches completed in the window. */
  errors: number;
  /** Every answer and failed fetch, warm-up included: what the server's CPU over the run served. */
  answered: number;
  /** Length of the window. */
  seconds: number;
  /** `requests / seconds`. */
  rps: number;
  p50ms: number;
  p99ms: number;
  /** Non-2xx outcomes by status (`fetch_failed` for network errors), warm-up included. */
  failures: Record<string, number>;
  /** A sample non-2xx body, to say why (truncated). */
  sampleError?: string;
}

/** Runs `spec` in a separate Deno process and returns what it measured. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const script = fileURLToPath(import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, JSON.stringify(spec)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    throw new Error(`load generator exited ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return JSON.parse(stdout.split("\n").at(-1)!) as LoadResult;
}

/** Drives `spec` from this process. */
export async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const start = performance.now();
  const windowStart = start + spec.warmupSeconds * 1000;
  const windowEnd = windowStart + spec.durationSeconds * 1000;
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let requests = 0;
  let errors = 0;
  let answered = 0;
  let sampleError: string | undefined;
  const init: RequestInit = { method: spec.method, headers: spec.headers, body: spec.body };

  async function loop(): Promise<void> {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= windowEnd) return;
      let ok = false;
      let outcome: string;
      try {
        const res = await fetch(spec.url, init);
        const text = await res.text();
        ok = res.ok;
        outcome = String(res.status);
        if (!ok) sampleError ??= text.slice(0, 300);
      } catch (err) {
        outcome = "fetch_failed";
        sampleError ??= String(err).slice(0, 300);
      }
      const t1 = performance.now();
      answered++;
      if (!ok) failures[outcome] = (failures[outcome] ?? 0) + 1;
      if (t1 < windowStart || t1 > windowEnd) continue;
      if (ok) {
        requests++;
        latencies.push(t1 - t0);
      } else {
        errors++;
      }
    }
  }

  await Promise.all(Array.from({ length: spec.concurrency }, loop));
  latencies.sort((a, b) => a - b);
  const seconds = spec.durationSeconds;
  const round1 = (n: number) => Math.round(n * 10) / 10;
  return {
    requests,
    errors,
    answered,
    seconds,
    rps: requests / seconds,
    p50ms: round1(percentileOfSorted(latencies, 50)),
    p99ms: round1(percentileOfSorted(latencies, 99)),
    failures,
    ...(sampleError === undefined ? {} : { sampleError }),
  };
}

if (import.meta.main) {
  const spec = JSON.parse(Deno.args[0] ?? "null") as LoadSpec | null;
  if (!spec?.url) {
    console.error("usage: deno run -A bench/load.ts '<LoadSpec JSON>'");
    Deno.exit(2);
  }
  console.log(JSON.stringify(await generateLoad(spec)));
}
