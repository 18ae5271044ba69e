/**
 * Builds what the render role needs: a token verifier (the local keyring, or the hub's JWKS for a
 * `ROLE=kernel` node that holds no private key), revocations, budgets, project templates, the
 * two-level cache and the evaluation worker pool.
 */
import { RenderCache } from "../cache/render_cache.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../ops/logger.ts";
import type { BudgetStore } from "../redis/budget.ts";
import type { RedisClient } from "../redis/client.ts";
import { KvRevocationList, RedisRevocationList } from "../redis/revocation.ts";
import { RemoteKeySet } from "../token/jwks.ts";
import type { Keyring } from "../token/keyring.ts";
import { CachingTokenVerifier } from "../token/verified_cache.ts";
import type { RenderServices } from "../web/context.ts";
import { CheckedBodies } from "./checked_bodies.ts";
import { ProjectTemplates } from "./project_templates.ts";
import { WorkerPool } from "./worker_pool.ts";

/** Wires the render pipeline for this process. */
export function buildRenderServices(options: {
  config: Config;
  kv: Deno.Kv;
  redis?: RedisClient;
  log: Logger;
  clock: () => number;
  /** The process's budget store (shared with the hub's mint when both run here). */
  budgets: BudgetStore;
  /** The hub's keyring when this process is also the hub; else the JWKS is fetched. */
  keyring?: Keyring;
}): RenderServices {
  const { config, kv, redis, log, clock } = options;
  const resolveKey = options.keyring
    ? (kid: string) => options.keyring!.resolve(kid)
    : remoteResolver(config.hubUrl, clock);
  const pool = new WorkerPool(config.renderWorkers ? { size: config.renderWorkers } : {});
  const deadlineMs = config.renderDeadlineMs;
  return {
    verifier: new CachingTokenVerifier(resolveKey, { clock }),
    revocations: redis
      ? new RedisRevocationList(redis, config.redisPrefix)
      : new KvRevocationList(kv),
    budgets: options.budgets,
    templates: new ProjectTemplates(kv),
    cache: new RenderCache({
      redis,
      prefix: config.redisPrefix,
      log,
      l1MaxBytes: config.renderL1Mb * 1024 * 1024,
    }),
    evaluate: (dag, limits) =>
      pool.evaluate(dag, {
        deadlineMs: Math.min(deadlineMs, limits?.deadlineMs ?? deadlineMs),
        limits,
      }),
    checkedBodies: new CheckedBodies(),
    close: () => pool.close(),
  };
}

function remoteResolver(hubUrl: string, clock: () => number) {
  const keys = new RemoteKeySet(`${hubUrl}/.well-known/jwks.json`, { clock });
  return (kid: string) => keys.resolve(kid);
}
