/**
 * The connection to a Redis Cluster (`REDIS_CLUSTER_NODES`, or `REDIS_URL=redis+cluster://…`):
 * node-redis's `createCluster`, which learns the slot map from the seed nodes and sends each
 * command to the master of its key's slot. Every node's socket has the options of a single-server
 * connection (client.ts) and every command the same deadline (cluster_deadline.ts), per node: while
 * one master is stalled or unreachable, the commands of its slots fail at once and the other
 * masters serve theirs; a node that comes back is used again without a restart.
 *
 * Multi-key scripts and MULTIs keep their keys in one slot with `{…}` hash tags (budget.ts,
 * render_quota_store.ts); every other command touches one key, so the keys spread over the masters.
 */
import { createCluster } from "redis";
import type { Logger } from "../ops/logger.ts";
import { connectionOptions, DEFAULT_REDIS_TIMEOUT_MS, type RedisClusterClient } from "./client.ts";
import { enforceClusterDeadlines } from "./cluster_deadline.ts";

/**
 * Where a cluster is: seed nodes and credentials (what `lib/config.ts` parses from the
 * environment; declared here too because config and redis are sibling layers).
 */
export interface ClusterSeeds {
  nodes: ReadonlyArray<{ host: string; port: number }>;
  username?: string;
  password?: string;
}

/**
 * Connects to the cluster that `config.nodes` belong to (any reachable seed answers with the whole
 * slot map); each node reconnects in the background with capped back-off.
 *
 * @example
 * ```ts
 * const redis = await connectRedisCluster({ nodes: [{ host: "10.0.0.5", port: 7000 }] }, log);
 * await redis.get("k"); // a reply, or RedisUnavailableError within REDIS_TIMEOUT_MS
 * ```
 */
export async function connectRedisCluster(
  config: ClusterSeeds,
  log: Logger,
  options: { timeoutMs?: number } = {},
): Promise<RedisClusterClient> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  const credentials = {
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
  };
  const cluster = createCluster({
    rootNodes: config.nodes.map(({ host, port }) => ({ socket: { host, port } })),
    // Every node client, the seeds and the nodes discovered from them alike.
    defaults: { ...connectionOptions(timeoutMs), ...credentials },
  });
  // Nodes in trouble; one line when a node's outage starts and one when it ends.
  const troubled = new Set<string>();
  const down = (node: string, msg: string, fields: Record<string, unknown> = {}) => {
    if (!troubled.has(node)) log.warn(msg, { node, ...fields });
    troubled.add(node);
    refresh();
  };
  const up = (node: string) => {
    if (troubled.delete(node)) log.info("redis cluster node answers again", { node });
  };
  // node-redis reads the slot map again only on a MOVED reply, which a dead master never sends:
  // while a node is in trouble the map is read every REFRESH_MS, so a replica promoted in its
  // place (failover) is found without a restart.
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  const refresh = () => {
    if (refreshTimer || !cluster.isOpen) return;
    refreshTimer = setTimeout(async () => {
      await refreshSlotMap(cluster, troubled).then(() => up(SLOT_MAP), () => {});
      const known = new Set([...cluster.masters, ...cluster.replicas].map((n) => n.address));
      for (const node of troubled) {
        if (node === SLOT_MAP || known.has(node)) continue;
        troubled.delete(node);
        log.info("redis cluster node left the slot map", { node });
      }
      refreshTimer = undefined;
      if (troubled.size) refresh();
    }, REFRESH_MS);
  };
  cluster.on("disconnect", () => {
    clearTimeout(refreshTimer);
    refreshTimer = undefined;
  });
  cluster.on(
    "error",
    (err: Error) => down(SLOT_MAP, "redis cluster slot map unavailable", { error: err.message }),
  );
  cluster.on(
    "node-error",
    (err: Error, node: { host: string; port: number }) =>
      down(`${node.host}:${node.port}`, "redis cluster node unavailable", { error: err.message }),
  );
  enforceClusterDeadlines(cluster, timeoutMs, {
    stalled: (node, ms) =>
      down(node, "redis cluster node not answering; its slots fail at once until it does", {
        timeoutMs: ms,
      }),
    answered: up,
  });
  await cluster.connect();
  up(SLOT_MAP);
  return cluster;
}

/** How often the slot map is read again while a node is in trouble, in milliseconds. */
const REFRESH_MS = 1000;
const SLOT_MAP = "(slot map)";

/**
 * Reads the slot map again (node-redis's own rediscovery), from a master not in trouble, else from
 * the first seed; node-redis goes on through the other seeds if that fails.
 */
async function refreshSlotMap(cluster: RedisClusterClient, troubled: Set<string>): Promise<void> {
  const slots = (cluster as unknown as {
    _self: { _slots: { rediscover(from: { options: unknown }): Promise<void> } };
  })._self._slots;
  const healthy = cluster.masters.find((m) => !troubled.has(m.address));
  const from = healthy
    ? { socket: { host: healthy.host, port: healthy.port } }
    : cluster._options.rootNodes[0];
  await slots.rediscover({ options: from });
}
