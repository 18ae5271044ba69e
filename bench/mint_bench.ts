/**
 * (b) Browser-flow mints over HTTP against the real hub (`startServer`, file-backed KV, real
 * Redis) versus a bare `Deno.serve` doing one Ed25519 sign and one Redis INCR, and the floor: the
 * bare handler with the hub's Redis rate limiter and response headers (`bare_mint_server.ts`).
 * All are served from this process and driven by the same load generator (`load.ts`, a separate
 * process) at the same concurrency, in rotating order for a few rounds.
 */
import { join } from "node:path";
import { loadConfig } from "../lib/config.ts";
import { Logger } from "../lib/ops/logger.ts";
import { verifyToken } from "../lib/token/verify.ts";
import { type RunningServer, startServer } from "../lib/app/server.ts";
import manifest from "../manifest.gen.ts";
import { type BareMintServer, startBareMintServer } from "./bare_mint_server.ts";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import type { LoadSpec } from "./load.ts";
import { compareUnderLoad, latencyMedians } from "./load_rounds.ts";
import { cpuLines, CpuMeter, redisServerPid } from "./cpu_time.ts";
import { createMintFixture, FIXTURE_RATE_LIMIT } from "./mint_fixture.ts";
import { deleteRedisPrefix } from "../tests/_helpers/redis.ts";
import { median } from "./stats.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const MINT_PATH = "/api/v1/sdk/session-tokens";
const CONCURRENCY = 32;
const WARMUP_SECONDS = 1;
const DURATION_SECONDS = 5;
// Five alternating rounds: with three, single runs of the same code gave product ÷ floor 0.64–0.94.
const ROUNDS = 5;
const PRIMING_SECONDS = 1;
const TARGET = 0.85;

/**
 * Sends one request as the load generator will and checks it yields a verifiable token; returns
 * the response headers.
 */
async function checkSample(
  spec: LoadSpec,
  resolveKey: (kid: string) => Promise<CryptoKey | undefined>,
): Promise<Headers> {
  const res = await fetch(spec.url, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  const text = await res.text();
  if (res.status !== 200) {
    throw new Error(`sample POST ${spec.url} answered ${res.status}: ${text.slice(0, 500)}`);
  }
  const { token } = JSON.parse(text) as { token?: string };
  if (typeof token !== "string" || !token.startsWith("sv1.")) {
    throw new Error(`sample POST ${spec.url} answered no sv1 token: ${text.slice(0, 500)}`);
  }
  await verifyToken(token, resolveKey, { now: Math.floor(Date.now() / 1000) });
  return res.headers;
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const dir = await Deno.makeTempDir({ prefix: "cadcfg-bench-" });
  const prefix = `bench:${crypto.randomUUID().slice(0, 8)}:`;
  let hub: RunningServer | undefined;
  let bare: BareMintServer | undefined;
  let floor: BareMintServer | undefined;
  try {
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      KV_PATH: join(dir, "hub.kv"),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SEED_DEMO: "false",
      LOG_LEVEL: "warn",
    });
    hub = await startServer(config, manifest, { log: new Logger("warn") });
    const fixture = await createMintFixture(hub.deps.kv);
    const keyring = hub.deps.hub!.keyring;
    bare = await startBareMintServer({
      redisUrl: REDIS_URL,
      counterKey: `${prefix}bare:mints`,
      signing: keyring.signingKey(),
    });

    const load = {
      method: "POST",
      headers: { origin: fixture.origin, "content-type": "application/json" },
      body: JSON.stringify({ keyId: fixture.keyId, projectId: fixture.projectId }),
      concurrency: CONCURRENCY,
      warmupSeconds: WARMUP_SECONDS,
      durationSeconds: DURATION_SECONDS,
    };
    const baselineSpec: LoadSpec = { ...load, url: bare.url };
    const candidateSpec: LoadSpec = { ...load, url: hub.url + MINT_PATH };
    const resolveKey = (kid: string) => keyring.resolve(kid);
    await checkSample(baselineSpec, resolveKey);
    const hubHeaders = await checkSample(candidateSpec, resolveKey);
    floor = await startBareMintServer({
      redisUrl: REDIS_URL,
      counterKey: `${prefix}floor:mints`,
      signing: keyring.signingKey(),
      floor: {
        limiterPrefix: `${prefix}floor:`,
        policy: FIXTURE_RATE_LIMIT,
        headers: [...hubHeaders].filter(([name]) => !["content-length", "date"].includes(name)),
      },
    });
    const floorSpec: LoadSpec = { ...load, url: floor.url };
    await checkSample(floorSpec, resolveKey);
    const rounds = await compareUnderLoad({
      name: "mint",
      baseline: { label: "bare", spec: baselineSpec },
      candidate: { label: "hub", spec: candidateSpec },
      floor: { label: "floor", spec: floorSpec },
      rounds: ROUNDS,
      cpu: new CpuMeter({ "redis-server": await redisServerPid(REDIS_URL) }),
      primingSeconds: PRIMING_SECONDS,
    }, progress);
    return {
      title: "mint",
      unit: "req/s",
      baseline: { label: "bare sign+INCR", value: median(rounds.baseline.map((r) => r.rps)) },
      candidate: { label: MINT_PATH, value: median(rounds.candidate.map((r) => r.rps)) },
      floor: {
        label: "bare + the hub's rate limiter in Redis + the hub's response headers",
        value: median(rounds.floor.map((r) => r.rps)),
        ratio: median(rounds.floor.map((r) => r.rps)) / median(rounds.baseline.map((r) => r.rps)),
        candidateRatio: median(rounds.candidate.map((r, i) => r.rps / rounds.floor[i].rps)),
      },
      target: TARGET,
      summary: `c=${CONCURRENCY}, ${DURATION_SECONDS} s × ${ROUNDS} rounds, ` +
        `${latencyMedians(rounds)} (bare/hub)`,
      details: [
        ...cpuLines(
          "CPU per mint, hub / floor (µs; this process's threads and the Redis server, " +
            "not the load generator)",
          rounds.cpu.hub,
          rounds.cpu.floor,
          1000,
          1,
        ),
        ...rounds.details,
      ],
      problems: rounds.problems,
    };
  } finally {
    try {
      await bare?.close();
      await floor?.close();
      await hub?.close();
      const removed = await deleteRedisPrefix(REDIS_URL, prefix);
      progress(`mint cleanup: deleted ${removed} Redis keys under ${prefix}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}

/** Browser-flow mint req/s over HTTP ÷ the floor (bare + the hub's limiter and headers); target ≥ 0.85. */
export const mintBench: Benchmark = {
  name: "mint",
  description:
    "POST /api/v1/sdk/session-tokens vs bare Deno.serve (one Ed25519 sign + one Redis INCR)",
  run,
};
