/**
 * A private Redis Cluster for tests: three `redis-server --cluster-enabled yes` masters (and, when
 * asked, replicas) on free loopback ports (data and bus port both chosen free), joined by `redis-cli --cluster create`,
 * without persistence, each in its own temporary directory. Never touches the shared server on
 * 6379. `cluster-require-full-coverage no`, as docs/api.md (Redis Cluster) recommends: while one
 * master is stopped the others keep serving their slots.
 */
import { Logger } from "@/lib/ops/logger.ts";
import { closeRedis, isRedisCluster, type RedisClient } from "@/lib/redis/client.ts";
import { connectRedisCluster } from "@/lib/redis/cluster.ts";
import { redisCommand, rid, withRedis } from "./redis.ts";
import { freePort } from "./redis_server.ts";

/** One master of a `LocalRedisCluster`. */
export interface ClusterNode {
  port: number;
  busPort: number;
  dir: string;
  child: Deno.ChildProcess;
  paused: boolean;
  killed?: boolean;
}

/** Three masters, 0 replicas, all 16384 slots assigned. */
export class LocalRedisCluster {
  readonly nodes: ClusterNode[];

  private constructor(nodes: ClusterNode[]) {
    this.nodes = nodes;
  }

  /**
   * Starts the nodes (`masters` × (1 + `replicas`)), creates the cluster and waits for
   * `cluster_state:ok` on every node. `nodeTimeoutMs` is how long a silent master takes to be
   * failed over to its replica.
   */
  static async start(
    masters = 3,
    options: { replicas?: number; nodeTimeoutMs?: number } = {},
  ): Promise<LocalRedisCluster> {
    const replicas = options.replicas ?? 0;
    const nodes: ClusterNode[] = [];
    const cluster = new LocalRedisCluster(nodes);
    try {
      const started = await Promise.all(
        Array.from(
          { length: masters * (1 + replicas) },
          () => startNode(options.nodeTimeoutMs ?? 5000),
        ),
      );
      nodes.push(...started);
      const create = await new Deno.Command("redis-cli", {
        args: [
          "--cluster",
          "create",
          ...nodes.map((n) => `127.0.0.1:${n.port}`),
          "--cluster-replicas",
          String(replicas),
          "--cluster-yes",
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!create.success) {
        throw new Error(
          `redis-cli --cluster create failed: ${new TextDecoder().decode(create.stdout)}
${new TextDecoder().decode(create.stderr)}`,
        );
      }
      await cluster.waitUntilOk();
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  /** `REDIS_CLUSTER_NODES`: every master as `127.0.0.1:<port>`, comma-separated. */
  get seeds(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(",");
  }

  /** Waits until every running, unpaused node reports `cluster_state:ok`. */
  async waitUntilOk(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const node of this.nodes.filter((n) => !n.paused && !n.killed)) {
      while (true) {
        const info = String(await nodeCommand(node.port, ["CLUSTER", "INFO"]).catch(() => ""));
        if (info.includes("cluster_state:ok")) break;
        if (Date.now() > deadline) throw new Error(`cluster not ok on ${node.port}: ${info}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** The master that holds `key`'s slot (asked of the cluster, not computed here). */
  async nodeOf(key: string): Promise<ClusterNode> {
    const slot = Number(await this.command(["CLUSTER", "KEYSLOT", key]));
    const ranges = (await this.command(["CLUSTER", "SLOTS"])) as Array<
      [number, number, [string, number, ...unknown[]], ...unknown[]]
    >;
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    const node = this.nodes.find((n) => n.port === Number(range?.[2][1]));
    if (!node) throw new Error(`no master holds slot ${slot}`);
    return node;
  }

  /** Every key matching `pattern` on every node (KEYS asks one node only), once each. */
  async keys(pattern: string): Promise<string[]> {
    const all = await Promise.all(
      this.nodes.filter((n) => !n.killed).map((n) =>
        nodeCommand(n.port, ["KEYS", pattern]) as Promise<string[]>
      ),
    );
    return [...new Set(all.flat())].sort();
  }

  /** Waits until every replica has every write of its master (replication is asynchronous). */
  async waitForReplicas(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const node of this.nodes.filter((n) => !n.paused)) {
      while (true) {
        const info = String(await nodeCommand(node.port, ["INFO", "replication"]));
        const offset = /master_repl_offset:(\d+)/.exec(info)?.[1];
        const behind = [...info.matchAll(/^slave\d+:.*offset=(\d+)/gm)].some((m) =>
          m[1] !== offset
        );
        if (!info.includes("role:master") || !behind) break;
        if (Date.now() > deadline) throw new Error(`replicas of ${node.port} lag: ${info}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** Kills one node for good (`SIGKILL`); `stop` still cleans it up. */
  async kill(node: ClusterNode): Promise<void> {
    if (node.paused) this.resume(node);
    node.child.kill("SIGKILL");
    await node.child.status;
    node.killed = true;
  }

  /** `SCRIPT FLUSH` on every master, as a restart of all of them would. */
  async flushScripts(): Promise<void> {
    await Promise.all(this.nodes.map((n) => nodeCommand(n.port, ["SCRIPT", "FLUSH"])));
  }

  /** `FLUSHALL` on every master, as a failover to empty replicas or an operator would. */
  async flushAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => nodeCommand(n.port, ["FLUSHALL"])));
  }

  /** Sends one command to a running, unpaused master and returns its reply. */
  command(args: string[]): Promise<unknown> {
    const node = this.nodes.find((n) => !n.paused && !n.killed);
    if (!node) throw new Error("every node is paused or killed");
    return nodeCommand(node.port, args);
  }

  /** Freezes one master (`SIGSTOP`): its connections stay open and nothing is answered. */
  pause(node: ClusterNode): void {
    node.child.kill("SIGSTOP");
    node.paused = true;
  }

  /** Lets a paused master go on (`SIGCONT`). */
  resume(node: ClusterNode): void {
    node.child.kill("SIGCONT");
    node.paused = false;
  }

  /** Kills every master and removes their directories. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map(async (node) => {
      if (node.paused) this.resume(node);
      try {
        if (!node.killed) node.child.kill("SIGKILL");
      } catch { /* already gone */ }
      await node.child.status;
      await Deno.remove(node.dir, { recursive: true }).catch(() => {});
    }));
    this.nodes.length = 0;
  }
}

/**
 * Runs `fn` with a fresh three-master cluster, stopped afterwards.
 *
 * @example
 * ```ts
 * await withLocalCluster(async (cluster) => { const redis = await connectRedisCluster(…); });
 * ```
 */
export async function withLocalCluster(fn: (cluster: LocalRedisCluster) => Promise<void>) {
  const cluster = await LocalRedisCluster.start();
  try {
    await fn(cluster);
  } finally {
    await cluster.stop();
  }
}

async function spawnNode(nodeTimeoutMs: number): Promise<ClusterNode> {
  const dir = await Deno.makeTempDir({ prefix: "redis-cluster-" });
  const port = freePort();
  let busPort = freePort();
  while (busPort === port) busPort = freePort();
  const child = new Deno.Command("redis-server", {
    args: [
      "--port",
      String(port),
      "--cluster-port",
      String(busPort),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      `${dir}/nodes.conf`,
      "--cluster-node-timeout",
      String(nodeTimeoutMs),
      "--cluster-require-full-coverage",
      "no",
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  return { port, busPort, dir, child, paused: false };
}

/**
 * A node listening on its own ports. `freePort` only picks a port that was free a moment ago: a
 * parallel test can take it (or its bus port) first, and then this redis-server cannot bind and
 * exits, or the port answers for another server. So the node counts as started only when the
 * server on its port has this child's pid; otherwise it is started again on new ports.
 */
async function startNode(nodeTimeoutMs: number): Promise<ClusterNode> {
  for (let attempt = 1;; attempt++) {
    const node = await spawnNode(nodeTimeoutMs);
    let exited = false;
    node.child.status.then(() => exited = true);
    try {
      await waitForPort(node.port, () => exited);
      const info = String(await nodeCommand(node.port, ["INFO", "server"]));
      if (Number(/^process_id:(\d+)/m.exec(info)?.[1]) === node.child.pid) return node;
      throw new Error(`port ${node.port} answered for another redis-server`);
    } catch (err) {
      try {
        node.child.kill("SIGKILL");
      } catch { /* already gone */ }
      await node.child.status;
      await Deno.remove(node.dir, { recursive: true }).catch(() => {});
      if (attempt === 3) throw err;
    }
  }
}

async function waitForPort(port: number, gone = () => false): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !gone()) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`redis-server did not start on port ${port}`);
}

function nodeCommand(port: number, args: string[]): Promise<unknown> {
  return redisCommand(`redis://127.0.0.1:${port}`, args);
}

/** What a test body may ask of the Redis it runs against beyond routed commands. */
export interface RedisAdmin {
  /** Every key matching `pattern`, on every master. */
  keys(pattern: string): Promise<string[]>;
  /** `SCRIPT FLUSH` everywhere. */
  flushScripts(): Promise<void>;
  /** The cluster, when the body runs against one. */
  cluster?: LocalRedisCluster;
}

/** A Redis a test body runs against: the shared server, or a private local cluster. */
export interface RedisTarget {
  name: "server" | "cluster";
  /** Runs `fn` with a client, a fresh key prefix and admin access; cleans up afterwards. */
  run(fn: (redis: RedisClient, prefix: string, admin: RedisAdmin) => Promise<void>): Promise<void>;
}

/**
 * The shared server (a random prefix, deleted afterwards) and a fresh three-master cluster (stopped
 * afterwards), for test bodies parametrized over both.
 *
 * @example
 * ```ts
 * for (const target of REDIS_TARGETS) {
 *   Deno.test(`budget - … (${target.name})`, () => target.run(async (redis, prefix, admin) => {}));
 * }
 * ```
 */
export const REDIS_TARGETS: RedisTarget[] = [
  {
    name: "server",
    run: (fn) =>
      withRedis((redis, prefix) => {
        if (isRedisCluster(redis)) throw new Error("withRedis gave a cluster client");
        return fn(redis, prefix, {
          keys: (pattern) => redis.keys(pattern).then((keys) => keys.sort()),
          flushScripts: () => redis.scriptFlush().then(() => {}),
        });
      }),
  },
  {
    name: "cluster",
    run: (fn) =>
      withLocalCluster(async (cluster) => {
        const redis = await connectRedisCluster(
          { nodes: cluster.nodes.map(({ port }) => ({ host: "127.0.0.1", port })) },
          new Logger("error", () => {}),
        );
        try {
          await fn(redis, `test:${rid(6)}:`, {
            keys: (pattern) => cluster.keys(pattern),
            flushScripts: () => cluster.flushScripts(),
            cluster,
          });
        } finally {
          await closeRedis(redis);
        }
      }),
  },
];
