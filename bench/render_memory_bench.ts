/**
 * Memory under many distinct renders: the resident set of a real `main.ts` server process
 * (`ROLE=all`, file-backed KV, the real Redis) after 1,000 distinct cold renders of the spur gear
 * versus after the first 10. Everything a render leaves behind counts: the L1 cache (bounded in
 * bytes), the checked-body memo, the worker pool's WASM heaps, V8 heaps of every thread.
 */
import { join } from "node:path";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { gearValuesFor } from "./direct_gear.ts";
import {
  BENCH_REDIS_URL,
  createRenderFixture,
  mintRenderHeaders,
  readExample,
  RENDER_PATH,
  renderOnce,
} from "./render_fixture.ts";
import { deleteRedisPrefix } from "../tests/_helpers/redis.ts";
import { type ServerProcess, startServerProcess } from "../tests/_helpers/process.ts";

const FIRST = 10;
const TOTAL = 1000;
const CONCURRENCY = 4;
const TARGET = 1.2;
const MIB = 1024 * 1024;

/**
 * The render order: a fixed shuffle of 0…TOTAL-1, so the first 10 are a sample of the same mix of
 * sizes as the rest (in index order they would be the 10 smallest gears).
 */
function shuffledOrder(): number[] {
  const order = Array.from({ length: TOTAL }, (_, i) => i);
  let seed = 0x2545f491;
  for (let i = order.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const dir = await Deno.makeTempDir({ prefix: "cadcfg-bench-" });
  const prefix = `bench:${crypto.randomUUID().slice(0, 8)}:`;
  const kvPath = join(dir, "hub.kv");
  let server: ServerProcess | undefined;
  try {
    const example = await readExample("spur-gear");
    const kv = await Deno.openKv(kvPath);
    let fixture;
    try {
      fixture = await createRenderFixture(kv, example);
    } finally {
      kv.close();
    }
    server = await startServerProcess({
      KV_PATH: kvPath,
      REDIS_URL: BENCH_REDIS_URL,
      REDIS_PREFIX: prefix,
      SEED_DEMO: "false",
      // "info": the start-up line carries the URL (and the request log is cheap next to a render).
      LOG_LEVEL: "info",
    });
    const target = {
      url: server.url + RENDER_PATH,
      headers: await mintRenderHeaders(server.url, fixture),
    };
    const problems: string[] = [];
    let done = 0;
    const order = shuffledOrder();
    const renderRange = async (from: number, to: number) => {
      let next = from;
      const worker = async () => {
        while (next < to) {
          const i = order[next++];
          const { body } = await renderOnce(target, example.finish({ ...gearValuesFor(i) }));
          if (body.cache !== "miss") problems.push(`render ${i}: ${body.cache}, not a miss`);
          if (++done % 100 === 0) progress(`render-memory ${done} renders`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    const settle = () => new Promise((r) => setTimeout(r, 1000));
    const start = await server.rss();
    await renderRange(0, FIRST);
    await settle();
    const afterFirst = await server.rss();
    const t0 = performance.now();
    await renderRange(FIRST, TOTAL);
    const seconds = (performance.now() - t0) / 1000;
    await settle();
    const afterAll = await server.rss();
    const mib = (b: number) => (b / MIB).toFixed(1);
    return {
      title: "render-memory",
      unit: "MiB",
      decimals: 1,
      lowerIsBetter: true,
      baseline: { label: `RSS after ${FIRST} renders`, value: afterFirst / MIB },
      candidate: { label: `RSS after ${TOTAL}`, value: afterAll / MIB },
      target: TARGET,
      summary: `main.ts subprocess, spur-gear, ${TOTAL} distinct cold renders ` +
        `(shuffled sizes) at c=${CONCURRENCY}`,
      details: [
        `RSS at start ${mib(start)} MiB, after ${FIRST} ${mib(afterFirst)} MiB, after ${TOTAL} ` +
        `${mib(afterAll)} MiB; the last ${TOTAL - FIRST} renders took ${seconds.toFixed(1)} s`,
      ],
      problems,
    };
  } finally {
    await server?.stop();
    const removed = await deleteRedisPrefix(BENCH_REDIS_URL, prefix);
    progress(`render-memory cleanup: deleted ${removed} Redis keys`);
    await Deno.remove(dir, { recursive: true });
  }
}

/** Server RSS after 1,000 distinct renders ÷ after 10; target ≤ 1.2. */
export const renderMemoryBench: Benchmark = {
  name: "render-memory",
  description: "resident memory of a main.ts server after 1,000 distinct renders vs after 10",
  run,
};
