/**
 * Builds what the render role needs: a token verifier (the local keyring, or the hub's JWKS for a
 * `ROLE=kernel` node that holds no private key), revocations, budgets, project templates, quota
 * settings, the two-level cache and the evaluation worker pool. A process that holds Deno KV reads
 * revocations, versions and quota settings from it; a kernel node (no KV) reads them from the hub's
 * feeds over HTTP (lib/render/hub_link.ts, docs/deploy.md).
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
import { RenderQuotas } from "./render_quota.ts";
import { MemoryRenderQuotaStore, RedisRenderQuotaStore } from "./render_quota_store.ts";
import { ProjectTemplates } from "./project_templates.ts";
import { RevocationReplica } from "./revocation_replica.ts";
import { HubLink } from "./hub_link.ts";
import { HubProjectVersions } from "./hub_project_versions.ts";
import { HubRevocationLog } from "./hub_revocation_log.ts";
import { HubKeyQuotas } from "./hub_key_quotas.ts";
import { KvProjectVersions } from "./kv_project_versions.ts";
import { HubProjectReads } from "./hub_project_reads.ts";
import { WorkerPool } from "../kernel/worker_pool.ts";
import { ExportCache } from "./export_cache.ts";
import { ArTickets } from "./ar_ticket.ts";
import type { ExportDeps } from "./export_request.ts";
import { SdkKeyCache } from "../store/sdk_key_cache.ts";
import type { Metrics } from "../ops/metrics.ts";

/** The render pipeline's dependencies plus what must be closed at shutdown. */
export interface RenderServices extends ExportDeps {
  /** This node's revocation replica (a revocation made in this process syncs it at once). */
  revocations: RevocationReplica;
  /** The published versions this node has loaded (and where from). */
  templates: ProjectTemplates;
  /** The link to the hub's feeds on a kernel node without KV (absent when KV is held). */
  hub?: HubLink;
  /** A kernel node's public project reads, forwarded to the hub (absent when KV is held). */
  projectReads?: HubProjectReads;
  /** Short-lived capability URLs of GLBs for Scene Viewer (ar_ticket.ts). */
  arTickets: ArTickets;
  close(): Promise<void>;
}

/** Wires the render pipeline for this process. */
export function buildRenderServices(options: {
  config: Config;
  /** The process's Deno KV; absent on a kernel node, which reads the hub's feeds instead. */
  kv?: Deno.Kv;
  redis?: RedisClient;
  log: Logger;
  clock: () => number;
  /** The hub's key cache when this process is also the hub (one cache, one invalidation). */
  keys?: SdkKeyCache;
  /** The process's budget store (shared with the hub's mint when both run here). */
  budgets: BudgetStore;
  /** The hub's keyring when this process is also the hub; else the JWKS is fetched. */
  keyring?: Keyring;
  /** The app's metrics (evaluations and cross-node lease waits are counted there). */
  metrics?: Pick<Metrics, "renderEvaluations" | "renderLeaseWaits" | "reusedSolids">;
}): RenderServices {
  const { config, kv, redis, log, clock } = options;
  const resolveKey = options.keyring
    ? (kid: string) => options.keyring!.resolve(kid)
    : remoteResolver(config.hubUrl, clock);
  const pool = new WorkerPool({
    size: config.renderWorkers || undefined,
    reuseTriangles: config.renderReuseTriangles,
    onReused: options.metrics && ((count) => options.metrics!.reusedSolids.inc({}, count)),
    admission: {
      tokenInFlight: config.renderTokenConcurrency,
      tokenRunning: config.renderTokenWorkers,
      partnerInFlight: config.renderPartnerConcurrency,
      maxWaitMs: config.renderQueueWaitMs,
    },
  });
  const deadlineMs = config.renderDeadlineMs;
  // Without KV (ROLE=kernel) everything durable comes from the hub over HTTP.
  const hub = kv ? undefined : new HubLink(config.hubUrl);
  // Key settings (quotas, export formats): the hub's key cache, KV, or the hub's feed.
  const keySettings = options.keys ?? (hub ? new HubKeyQuotas(hub) : new SdkKeyCache(kv!));
  // Revocations come from the KV log (or the hub's feed of it) on every node, with or without
  // Redis. Real time, not `clock`: the staleness bound is about elapsed time, and tests move
  // `clock` to age tokens.
  const revocations = new RevocationReplica(kv ?? new HubRevocationLog(hub!), { log });
  revocations.start();
  const cache = new RenderCache({
    redis,
    prefix: config.redisPrefix,
    log,
    l1MaxBytes: config.renderL1Mb * 1024 * 1024,
    // A live holder answers within its queue wait plus its deadline: wait that long, no longer.
    lease: { maxWaitMs: config.renderQueueWaitMs + deadlineMs },
    metrics: options.metrics && {
      evaluations: options.metrics.renderEvaluations,
      leaseWaits: options.metrics.renderLeaseWaits,
    },
  });
  return {
    verifier: new CachingTokenVerifier(resolveKey, { clock }),
    revocations,
    hub,
    projectReads: hub ? new HubProjectReads(hub) : undefined,
    budgets: options.budgets,
    templates: new ProjectTemplates(kv ? new KvProjectVersions(kv) : new HubProjectVersions(hub!)),
    cache,
    evaluate: (dag, limits, tenant) =>
      pool.evaluate(dag, {
        deadlineMs: Math.min(deadlineMs, limits?.deadlineMs ?? deadlineMs),
        limits,
        tenant,
      }),
    exports: new ExportCache({ redis, prefix: config.redisPrefix, log }),
    exportFile: (dag, format, title, limits, tenant) =>
      pool.exportFile(dag, format, title, {
        deadlineMs: Math.min(deadlineMs, limits?.deadlineMs ?? deadlineMs),
        limits,
        tenant,
      }),
    keySettings,
    arTickets: new ArTickets({ redis, prefix: config.redisPrefix }),
    checkedBodies: new CheckedBodies(),
    quotas: new RenderQuotas({
      kv,
      keys: keySettings,
      store: redis
        ? new RedisRenderQuotaStore(redis, config.redisPrefix)
        : new MemoryRenderQuotaStore(),
      clock,
    }),
    close: async () => {
      await revocations.stop();
      await cache.close();
      await pool.close();
    },
  };
}

function remoteResolver(hubUrl: string, clock: () => number) {
  const keys = new RemoteKeySet(`${hubUrl}/.well-known/jwks.json`, { clock });
  return (kid: string) => keys.resolve(kid);
}
