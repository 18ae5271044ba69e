/**
 * Process start-up shared by `main.ts` and the tests: open Deno KV, connect Redis (or announce the
 * in-process fallback), load the signing keys, seed the demo, and serve the app.
 */
import type { Config } from "../config.ts";
import { demoOrigins, type DemoSeed, seedDemo } from "../hub/demo_seed.ts";
import { buildHubDeps } from "../hub/hub_deps.ts";
import { backfillRevocations } from "../hub/revocation_backfill.ts";
import { buildRenderServices } from "../render/render_services.ts";
import { Logger } from "../ops/logger.ts";
import { Metrics } from "../ops/metrics.ts";
import { MemoryBudgetStore, RedisBudgetStore } from "../render/budget.ts";
import { closeRedis, connectRedis, type RedisClient } from "../redis/client.ts";
import { connectRedisCluster } from "../redis/cluster.ts";
import { openKv } from "../store/kv.ts";
import { migrateGlobalProjects } from "../store/project_scope_migration.ts";
import { absentKv } from "./absent_kv.ts";
import { createApp } from "./app.ts";
import { SignInThrottle } from "../auth/sign_in_throttle.ts";
import { UsageRecorder } from "../hub/usage.ts";
import { UsageDrain } from "../hub/usage_drain.ts";
import { UsageRelay } from "../render/usage_relay.ts";
import type { AppDeps, Manifest } from "./context.ts";

/** A running server and what tests need to reach into it. */
export interface RunningServer {
  url: string;
  deps: AppDeps;
  demo?: DemoSeed;
  /** Stops serving and closes KV, Redis and timers. */
  close(): Promise<void>;
}

/** Builds the process's dependencies from `config`. */
export async function buildDeps(
  config: Config,
  options: { log?: Logger; clock?: () => number; kv?: Deno.Kv } = {},
): Promise<AppDeps> {
  const log = options.log ?? new Logger(config.logLevel);
  const clock = options.clock ?? Date.now;
  // A kernel node holds no durable state: it opens no KV, whatever KV_PATH says (docs/deploy.md).
  const kernel = config.role === "kernel";
  const kv = kernel ? absentKv() : options.kv ?? await openKv(config.kvPath);
  let redis: RedisClient | undefined;
  if (config.redisCluster) {
    redis = await connectRedisCluster(config.redisCluster, log, {
      timeoutMs: config.redisTimeoutMs,
    });
  } else if (config.redisUrl) {
    redis = await connectRedis(config.redisUrl, log, { timeoutMs: config.redisTimeoutMs });
  } else {
    log.warn(
      "REDIS_URL is unset: rate limits, budgets and the L2 cache use in-process state " +
        "(correct for one instance only; set REDIS_URL before running more than one).",
    );
  }
  // One budget store for the process: the hub opens a token's counter, the kernel spends it.
  const budgets = redis
    ? new RedisBudgetStore(redis, config.redisPrefix)
    : new MemoryBudgetStore(clock);
  if (!kernel) await prepareStore(kv, config, { redis, clock, log });
  const hub = config.role === "kernel"
    ? undefined
    : await buildHubDeps(kv, { redis, redisPrefix: config.redisPrefix, clock, budgets });
  const metrics = new Metrics();
  const render = config.role === "hub" ? undefined : buildRenderServices({
    config,
    metrics,
    kv: kernel ? undefined : kv,
    redis,
    log,
    clock,
    budgets,
    keyring: hub?.keyring,
    keys: hub?.keys,
  });
  // A kernel node has no KV: its render counts go through Redis to the hub (docs/deploy.md).
  const recorder = kernel ? undefined : new UsageRecorder(kv, { clock, log });
  if (hub) hub.usage = recorder;
  const usage = recorder ?? (redis
    ? new UsageRelay(redis, {
      prefix: config.redisPrefix,
      clock,
      log,
      dropped: metrics.usageDropped,
    })
    : undefined);
  const signInThrottle = hub
    ? new SignInThrottle({ redis, prefix: config.redisPrefix })
    : undefined;
  return {
    config,
    kv,
    redis,
    hub,
    render,
    metrics,
    log,
    clock,
    usage,
    signInThrottle,
  };
}

/** Brings a store up to date before anything reads it (a process that holds KV only). */
async function prepareStore(
  kv: Deno.Kv,
  config: Config,
  deps: { redis?: RedisClient; clock: () => number; log: Logger },
): Promise<void> {
  const { redis, clock, log } = deps;
  // Once per store, before any replica loads: revocations made before the log existed.
  await backfillRevocations(kv, { redis, prefix: config.redisPrefix, now: clock(), log });
  // Before anything reads a project: stores written when slugs were global move to their partner.
  const migrated = await migrateGlobalProjects(kv);
  if (migrated.moved.length) {
    log.info("projects moved to per-partner slugs", { projects: migrated.moved.length });
  }
  if (migrated.conflicts.length) {
    log.warn("old project records left in place: their partner has the slug already", {
      slugs: migrated.conflicts,
    });
  }
}

/**
 * Starts serving `config` and returns once listening.
 *
 * @example
 * ```ts
 * import manifest from "./manifest.gen.ts";
 * const server = await startServer(loadConfig(), manifest);
 * console.log(server.url);
 * ```
 */
export async function startServer(
  config: Config,
  manifest: Manifest,
  options: { log?: Logger; clock?: () => number; kv?: Deno.Kv } = {},
): Promise<RunningServer> {
  const deps = await buildDeps(config, options);
  const stopRefresh = deps.hub?.keyring.startAutoRefresh(30_000);
  // Every hub with Redis moves kernel nodes' render counts into KV (lib/hub/usage_drain.ts).
  const drain = deps.hub && deps.redis
    ? new UsageDrain(deps.kv, deps.redis, { prefix: config.redisPrefix, log: deps.log })
    : undefined;
  drain?.start();
  const app = createApp(deps, manifest);
  const ac = new AbortController();
  let resolveListening: (addr: Deno.NetAddr) => void;
  const listening = new Promise<Deno.NetAddr>((r) => (resolveListening = r));
  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    signal: ac.signal,
    onListen: (addr) => resolveListening(addr as Deno.NetAddr),
  }, app.fetch);
  const addr = await listening;
  const host = addr.hostname === "0.0.0.0" || addr.hostname === "::" ? "localhost" : addr.hostname;
  const url = `http://${host}:${addr.port}`;
  let demo: DemoSeed | undefined;
  if (config.seedDemo && config.role !== "kernel") {
    const origins = demoOrigins(config.publicUrl, addr.port);
    demo = await seedDemo(deps.kv, origins);
  }
  return {
    url,
    deps,
    demo,
    async close() {
      await stopRefresh?.();
      await deps.usage?.flush();
      await drain?.stop();
      await deps.render?.close();
      ac.abort();
      await server.finished;
      if (deps.redis) await closeRedis(deps.redis);
      if (!options.kv) deps.kv.close();
    },
  };
}
