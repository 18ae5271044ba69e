/**
 * Cache-hit renders over HTTP against the real kernel-api (`startServer`, file-backed KV, real
 * Redis: token check, revocation, origin, template instance, budget script, L1 hit, response)
 * versus a bare `Deno.serve` doing one Redis INCR and answering the same bytes, and the floor: the
 * bare handler with the kernel's revocation check (its in-memory replica) and budget call in Redis
 * and its response headers (`bare_render_server.ts`). All are served from this process and driven by the same load
 * generator (`load.ts`, a separate process) at the same concurrency, in rotating order.
 */
import { request } from "node:http";
import { type BareRenderServer, startBareRenderServer } from "./bare_render_server.ts";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import type { LoadSpec } from "./load.ts";
import { compareUnderLoad, latencyMedians } from "./load_rounds.ts";
import { cpuLines, CpuMeter, redisServerPid } from "./cpu_time.ts";
import {
  BENCH_REDIS_URL,
  type RenderBenchServer,
  startRenderBenchServer,
} from "./render_fixture.ts";
import { median } from "./stats.ts";

const EXAMPLE = "spur-gear";
const CONCURRENCY = 32;
const WARMUP_SECONDS = 1;
const DURATION_SECONDS = 5;
// Five alternating rounds: with three, single runs of the same code gave product ÷ floor 0.76–0.99.
const ROUNDS = 5;
const TARGET = 0.9;

/** What fetch receives before it decodes: the status, headers and body bytes as sent. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: [string, string][]; bytes: Uint8Array<ArrayBuffer> }> {
  // Deno's fetch decodes a coded body and cannot be told not to; node:http hands it over as sent.
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      res.on("end", () => {
        const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
        chunks.reduce((at, c) => (bytes.set(c, at), at + c.byteLength), 0);
        const pairs: [string, string][] = [];
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) {
            pairs.push([name, Array.isArray(value) ? value.join(", ") : value]);
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: pairs, bytes });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A raw answer's `Content-Encoding`, if it has one. */
function encodingOf(raw: { headers: [string, string][] }): string | undefined {
  return raw.headers.find(([name]) => name === "content-encoding")?.[1];
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  let kernel: RenderBenchServer | undefined;
  let bare: BareRenderServer | undefined;
  let floor: BareRenderServer | undefined;
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
    // The hit as the load generator receives it (fetch asks for gzip and br): the bare server and
    // the floor answer these very bytes, coded as the kernel codes them. A hit is answered in gzip
    // until the scene's dense brotli prefix, started by the first hit, is ready (docs/api.md,
    // compression); from then on in brotli, as under the load: wait for it.
    const rawHit = () =>
      rawPost(
        kernel!.target.url,
        { ...kernel!.target.headers, "accept-encoding": "gzip, br" },
        body,
      );
    let raw = await rawHit();
    for (let i = 0; i < 200 && raw.status === 200 && encodingOf(raw) !== "br"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      raw = await rawHit();
    }
    if (raw.status !== 200) throw new Error(`the raw hit answered ${raw.status}`);
    const coding = encodingOf(raw);
    if (coding !== "br") throw new Error("the kernel's hits never came in brotli");
    const bytes = raw.bytes;
    bare = await startBareRenderServer({
      redisUrl: BENCH_REDIS_URL,
      counterKey: `${kernel.prefix}bare:renders`,
      body: bytes,
      contentEncoding: coding,
    });
    floor = await startBareRenderServer({
      redisUrl: BENCH_REDIS_URL,
      counterKey: `${kernel.prefix}floor:renders`,
      body: bytes,
      floor: {
        prefix: `${kernel.prefix}floor:`,
        headers: raw.headers.filter(([name]) =>
          !["content-length", "date", "connection", "keep-alive", "transfer-encoding"].includes(
            name,
          )
        ),
      },
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
    const rounds = await compareUnderLoad({
      name: "render-hit",
      baseline: { label: "bare", spec: baselineSpec },
      candidate: { label: "kernel", spec: candidateSpec },
      floor: { label: "floor", spec: { ...load, url: floor.url } },
      rounds: ROUNDS,
      cpu: new CpuMeter({ "redis-server": await redisServerPid(BENCH_REDIS_URL) }),
      primingSeconds: 1,
    }, progress);
    return {
      title: "render-hit",
      unit: "req/s",
      baseline: { label: "bare INCR+bytes", value: median(rounds.baseline.map((r) => r.rps)) },
      candidate: { label: "L1-hit render", value: median(rounds.candidate.map((r) => r.rps)) },
      floor: {
        label: "bare + the kernel's revocation lookup and budget script in Redis + its headers",
        value: median(rounds.floor.map((r) => r.rps)),
        ratio: median(rounds.floor.map((r) => r.rps)) / median(rounds.baseline.map((r) => r.rps)),
        candidateRatio: median(rounds.candidate.map((r, i) => r.rps / rounds.floor[i].rps)),
      },
      target: TARGET,
      summary: `${EXAMPLE}, ${bytes.byteLength} B responses` +
        ` (${coding}; ${hitText.length} chars decoded), c=${CONCURRENCY}, ` +
        `${DURATION_SECONDS} s × ${ROUNDS} rounds, ${latencyMedians(rounds)} (bare/kernel)`,
      details: [
        ...cpuLines(
          "CPU per render, kernel / floor (µs; this process's threads and the Redis server, " +
            "not the load generator)",
          rounds.cpu.kernel,
          rounds.cpu.floor,
          1000,
          1,
        ),
        ...rounds.details,
      ],
      problems: rounds.problems,
    };
  } finally {
    await bare?.close();
    await floor?.close();
    const removed = await kernel?.close();
    progress(`render-hit cleanup: deleted ${removed ?? 0} Redis keys`);
  }
}

/** L1-hit render req/s over HTTP ÷ the floor (bare + the kernel's revocation, budget, headers); target ≥ 0.9. */
export const renderHitBench: Benchmark = {
  name: "render-hit",
  description:
    "POST /v1/kernels/manifold/render (L1 hit) vs bare Deno.serve (one INCR, same bytes)",
  run,
};
