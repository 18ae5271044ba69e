/** Readiness: whether the stores this process depends on answer right now. */
import { type RedisClient, redisReachable } from "../redis/client.ts";

/** One dependency's state: `ok`, `down`, or `in-process` when Redis is not configured. */
export type CheckState = "ok" | "down" | "in-process";

/** The readiness report served at `/readyz`. */
export interface ReadinessReport {
  status: "ok" | "unavailable";
  checks: { kv: CheckState; redis: CheckState };
}

/**
 * Probes KV (a read) and Redis (a PING, which gives up at `REDIS_TIMEOUT_MS` like every Redis call,
 * and at once while the client knows Redis is stalled or reconnecting: lib/redis/deadline.ts).
 */
export async function checkReadiness(
  deps: { kv: Deno.Kv; redis?: RedisClient },
): Promise<ReadinessReport> {
  const [kv, redis] = await Promise.all([
    deps.kv.get(["readyz"]).then((): CheckState => "ok", (): CheckState => "down"),
    deps.redis
      ? redisReachable(deps.redis).then((ok): CheckState => (ok ? "ok" : "down"))
      : Promise.resolve<CheckState>("in-process"),
  ]);
  return {
    status: kv !== "down" && redis !== "down" ? "ok" : "unavailable",
    checks: { kv, redis },
  };
}
