/**
 * Readiness (`/readyz`): whether this process can serve right now, for a load balancer.
 *
 * A process that holds Deno KV (`ROLE=all|hub`) is ready when KV and (when configured) Redis
 * answer. A kernel node (`ROLE=kernel`) holds no KV: it reports Redis, the hub (when it last
 * answered) and its revocation replica (how old its last successful read is). The status:
 *
 * - `ok` (200): everything answers.
 * - `degraded` (200, with `warnings`): the hub has not answered for `HUB_DEGRADED_AFTER_MS`, but
 *   the node still renders from what it has cached. A load balancer keeps it.
 * - `unavailable` (503): the node cannot serve: KV or Redis down (budgets fail closed), or the
 *   revocation replica past its bound (every render is refused, docs/tokens.md). A load balancer
 *   drains it until it recovers by itself.
 */
import { type RedisClient, redisReachable } from "../redis/client.ts";
import type { HubLinkStatus } from "../render/hub_link.ts";
import { REVOCATION_MAX_STALENESS_MS } from "../render/revocation_replica.ts";

/** One dependency's state: `ok`, `down`, or `in-process` when Redis is not configured. */
export type CheckState = "ok" | "down" | "in-process";

/** The revocation replica as `/readyz` reports it on a kernel node. */
export interface RevocationCheck {
  /** `ok` within the staleness bound; `stale` past it (every render is refused). */
  state: "ok" | "stale";
  /** Milliseconds since the last successful read of the log started (null: never). */
  ageMs: number | null;
}

/** The readiness report served at `/readyz`. */
export interface ReadinessReport {
  status: "ok" | "degraded" | "unavailable";
  checks: {
    /** Absent on a kernel node, which opens no KV. */
    kv?: CheckState;
    redis: CheckState;
    /** A kernel node's link to the hub. */
    hub?: HubLinkStatus;
    /** A kernel node's revocation replica. */
    revocations?: RevocationCheck;
  };
  /** Why the status is `degraded` (or `unavailable`), one sentence each. */
  warnings?: string[];
}

/** What readiness reads of the process. */
export interface ReadinessDeps {
  config: { role: string };
  kv: Deno.Kv;
  redis?: RedisClient;
  render?: {
    hub?: { status(): HubLinkStatus };
    revocations: { stats(): { ageMs: number } };
  };
}

/**
 * Probes KV (a read; not on a kernel node) and Redis (a PING, which gives up at
 * `REDIS_TIMEOUT_MS` like every Redis call, and at once while the client knows Redis is stalled
 * or reconnecting: lib/redis/deadline.ts); on a kernel node, reads the hub link and the replica.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<ReadinessReport> {
  const kernel = deps.config.role === "kernel";
  const [kv, redis] = await Promise.all([
    kernel
      ? Promise.resolve(undefined)
      : deps.kv.get(["readyz"]).then((): CheckState => "ok", (): CheckState => "down"),
    deps.redis
      ? redisReachable(deps.redis).then((ok): CheckState => (ok ? "ok" : "down"))
      : Promise.resolve<CheckState>("in-process"),
  ]);
  const checks: ReadinessReport["checks"] = kernel ? { redis } : { kv, redis };
  const warnings: string[] = [];
  let unavailable = kv === "down" || redis === "down";
  if (kv === "down") warnings.push("Deno KV does not answer.");
  if (redis === "down") warnings.push("Redis does not answer: budgets fail closed.");
  const hub = deps.render?.hub?.status();
  if (kernel && hub) {
    checks.hub = hub;
    const age = deps.render!.revocations.stats().ageMs;
    const stale = !(age <= REVOCATION_MAX_STALENESS_MS);
    checks.revocations = {
      state: stale ? "stale" : "ok",
      ageMs: Number.isFinite(age) ? Math.round(age) : null,
    };
    if (stale) {
      unavailable = true;
      warnings.push(
        "The revocation log has not been read within its bound: every render is refused.",
      );
    } else if (hub.state === "degraded") {
      warnings.push(
        "The hub does not answer: serving cached project versions and quota settings.",
      );
    }
  }
  const status = unavailable ? "unavailable" : warnings.length ? "degraded" : "ok";
  return warnings.length ? { status, checks, warnings } : { status, checks };
}
