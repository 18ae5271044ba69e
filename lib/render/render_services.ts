/**
 * Builds what the render role needs: a token verifier (the local keyring, or the hub's JWKS for a
 * `ROLE=kernel` node that holds no private key), revocations, budgets, project templates, the
 * two-level cache and the evaluation worker pool.
 */
import { RenderCache } from "./render_cache.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../ops/logger.ts";
import type { BudgetStore } from "./budget.ts";
import type { RedisClient } from "../redis/client.ts";
import { RemoteKeySet } from "../token/jwks.ts";
import type { Keyring } from "../token/keyring.ts";
import { CachingTokenVerifier } from "../token/verified_cache.ts";
import { CheckedBodies } from "./checked_bodies.ts";
import type { SdkKeyCache } from "../store/sdk_key_cache.ts";
import { RenderQuotas } from "./render_quota.ts";
import { MemoryRenderQuotaStore, RedisRenderQuotaStore } from "./render_quota_store.ts";
import { ProjectTemplates } from "./project_templates.ts";
import { RevocationReplica } from "./revocation_replica.ts";
import { WorkerPool } from "../kernel/worker_pool.ts";
import type { RenderDeps } from "./render.ts";

/** The render pipeline's dependencies plus what must be closed at shutdown. */
export interface RenderServices extends RenderDeps {
  /** This node's revocation replica (a revocation made in this process syncs it at once). */
  revocations: RevocationReplica;
  close(): Promise<void>;
}

/** Wires the render pipeline for this process. */
export function buildRenderServices(options: {
  config: Config;
  kv: Deno.Kv;
  redis?: RedisClient;
  log: Logger;
  clock: () => number;
  /** The hub's key cache when this process is also the hub (one cache, one invalidation). */
  keys?: SdkKeyCache;
  /** The process's budget store (shared with the hub's mint when both run here). */
  budgets: BudgetStore;
  /** The hub's keyring when this process is also the hub; else the JWKS is fetched. */
  keyring?: Keyring;
}): RenderServices {
  const { config, kv, redis, log, clock } = options;
  const resolveKey = options.keyring
    ? (kid: string) => options.keyring!.resolve(kid)
    : remoteResolver(config.hubUrl, clock);
  const pool = new WorkerPool({
    size: config.renderWorkers || undefined,
    admission: {
      tokenInFlight: config.renderTokenConcurrency,
      tokenRunning: config.renderTokenWorkers,
      partnerInFlight: config.renderPartnerConcurrency,
      maxWaitMs: config.renderQueueWaitMs,
    },
  });
  const deadlineMs = config.renderDeadlineMs;
  // Revocations come from Deno KV on every node, with or without Redis. Real time, not `clock`:
  // the staleness bound is about elapsed time, and tests move `clock` to age tokens.
  const revocations = new RevocationReplica(kv, { log });
  revocations.start();
  return {
    verifier: new CachingTokenVerifier(resolveKey, { clock }),
    revocations,
    budgets: options.budgets,
    templates: new ProjectTemplates(kv),
    cache: new RenderCache({
      redis,
      prefix: config.redisPrefix,
      log,
      l1MaxBytes: config.renderL1Mb * 1024 * 1024,
    }),
    evaluate: (dag, limits, tenant) =>
      pool.evaluate(dag, {
        deadlineMs: Math.min(deadlineMs, limits?.deadlineMs ?? deadlineMs),
        limits,
        tenant,
      }),
    checkedBodies: new CheckedBodies(),
    quotas: new RenderQuotas({
      kv,
      keys: options.keys,
      store: redis
        ? new RedisRenderQuotaStore(redis, config.redisPrefix)
        : new MemoryRenderQuotaStore(),
      clock,
    }),
    close: async () => {
      await revocations.stop();
      await pool.close();
    },
  };
}

function remoteResolver(hubUrl: string, clock: () => number) {
  const keys = new RemoteKeySet(`${hubUrl}/.well-known/jwks.json`, { clock });
  return (kid: string) => keys.resolve(kid);
}
