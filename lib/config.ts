/**
 * Runtime configuration, read once from the environment at start-up. Every variable is
 * documented in the README; nothing else in `lib/` reads `Deno.env`.
 */
import { TrustedProxies, TrustedProxiesError } from "./http/client_ip.ts";

/** Which parts of the product this process serves. */
export type Role = "all" | "hub" | "kernel";

/** The validated configuration of one process. */
export interface Config {
  /** TCP port to listen on. */
  port: number;
  /** Interface to bind. */
  host: string;
  /** This process's public base URL, without a trailing slash. */
  publicUrl: string;
  /** The hub's public base URL (where tokens are minted and the JWKS lives). */
  hubUrl: string;
  /** The render service's public base URL. */
  kernelUrl: string;
  /** Which routes this process serves. */
  role: Role;
  /** Deno KV location: a file path, `:memory:`, or a KV Connect URL. */
  kvPath: string;
  /**
   * Redis URL of one server; `undefined` (and no `redisCluster`) selects the in-process
   * equivalents (single instance only).
   */
  redisUrl?: string;
  /** A Redis Cluster instead of one server (`REDIS_CLUSTER_NODES` or a `redis+cluster://` URL). */
  redisCluster?: RedisClusterConfig;
  /** Prefix of every Redis key this process writes. */
  redisPrefix: string;
  /** Deadline of one Redis command, in milliseconds (lib/redis/deadline.ts). */
  redisTimeoutMs: number;
  /** Whether to create the demo partner, project and key on an empty store. */
  seedDemo: boolean;
  /** Log level threshold. */
  logLevel: "debug" | "info" | "warn" | "error";
  /** Wall-clock deadline of one DAG evaluation, in milliseconds. */
  renderDeadlineMs: number;
  /** Evaluation workers; 0 = one per CPU (at most 8). */
  renderWorkers: number;
  /** Bound of the in-process (L1) render cache, in MiB of encoded meshes. */
  renderL1Mb: number;
  /** Triangles each render worker keeps between renders to reuse (0 = no reuse; docs/dag.md). */
  renderReuseTriangles: number;
  /** Which peers are proxies whose `X-Forwarded-For` names the client (`TRUSTED_PROXIES`). */
  trustedProxies: TrustedProxies;
  /** Renders one token may have queued or running on this node (docs/api.md, Render admission). */
  renderTokenConcurrency: number;
  /** Workers one token may hold at once; 0 = one less than the pool (at least 1). */
  renderTokenWorkers: number;
  /** Renders one partner's tokens may have queued or running; 0 = 16 per worker. */
  renderPartnerConcurrency: number;
  /** Longest expected wait for a worker that a render is queued with, in milliseconds. */
  renderQueueWaitMs: number;
}

/** Where a Redis Cluster is: seed nodes (any masters or replicas; the rest is discovered). */
export interface RedisClusterConfig {
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  /** Stable code for callers that switch on it. */
  readonly code = "invalid_config";
}

/** Reads and validates the configuration from an environment map. */
export function loadConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const port = parsePort(env.PORT ?? "8000");
  const host = env.HOST?.trim() || "0.0.0.0";
  const role = parseRole(env.ROLE ?? "all");
  const publicUrl = parseBaseUrl("PUBLIC_URL", env.PUBLIC_URL ?? `http://localhost:${port}`);
  const hubUrl = env.HUB_URL ? parseBaseUrl("HUB_URL", env.HUB_URL) : publicUrl;
  const kernelUrl = env.KERNEL_URL ? parseBaseUrl("KERNEL_URL", env.KERNEL_URL) : publicUrl;
  const logLevel = env.LOG_LEVEL ?? "info";
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be debug, info, warn or error, not "${logLevel}"`);
  }
  const redis = parseRedis(env.REDIS_URL?.trim() || undefined, env.REDIS_CLUSTER_NODES?.trim());
  return {
    port,
    host,
    publicUrl,
    hubUrl,
    kernelUrl,
    role,
    kvPath: env.KV_PATH?.trim() || "./data/hub.kv",
    ...redis,
    redisPrefix: env.REDIS_PREFIX ?? "cadcfg:",
    redisTimeoutMs: parseInteger("REDIS_TIMEOUT_MS", env.REDIS_TIMEOUT_MS ?? "500", 1, 60_000),
    seedDemo: (env.SEED_DEMO ?? "true") !== "false",
    logLevel: logLevel as Config["logLevel"],
    renderDeadlineMs: parseInteger(
      "RENDER_DEADLINE_MS",
      env.RENDER_DEADLINE_MS ?? "10000",
      1,
      600_000,
    ),
    renderWorkers: parseInteger("RENDER_WORKERS", env.RENDER_WORKERS ?? "0", 0, 64),
    renderL1Mb: parseInteger("RENDER_L1_MB", env.RENDER_L1_MB ?? "16", 1, 65_536),
    renderReuseTriangles: parseInteger(
      "RENDER_REUSE_TRIANGLES",
      env.RENDER_REUSE_TRIANGLES ?? "10000",
      0,
      10_000_000,
    ),
    trustedProxies: parseTrustedProxies(env.TRUSTED_PROXIES),
    renderTokenConcurrency: parseInteger(
      "RENDER_TOKEN_CONCURRENCY",
      env.RENDER_TOKEN_CONCURRENCY ?? "4",
      1,
      1024,
    ),
    renderTokenWorkers: parseInteger(
      "RENDER_TOKEN_WORKERS",
      env.RENDER_TOKEN_WORKERS ?? "0",
      0,
      64,
    ),
    renderPartnerConcurrency: parseInteger(
      "RENDER_PARTNER_CONCURRENCY",
      env.RENDER_PARTNER_CONCURRENCY ?? "0",
      0,
      65_536,
    ),
    renderQueueWaitMs: parseInteger(
      "RENDER_QUEUE_WAIT_MS",
      env.RENDER_QUEUE_WAIT_MS ?? "5000",
      0,
      600_000,
    ),
  };
}

const CLUSTER_SCHEME = "redis+cluster://";

/**
 * `REDIS_URL` (one server, or `redis+cluster://[user:password@]host:port,host:port` for a
 * cluster) and `REDIS_CLUSTER_NODES` (`host:port,host:port`): at most one of them.
 */
function parseRedis(
  url: string | undefined,
  clusterNodes: string | undefined,
): Pick<Config, "redisUrl" | "redisCluster"> {
  if (clusterNodes) {
    if (url) {
      throw new ConfigError("REDIS_URL and REDIS_CLUSTER_NODES are both set: set one of them");
    }
    return { redisCluster: { nodes: parseNodes("REDIS_CLUSTER_NODES", clusterNodes) } };
  }
  if (url?.toLowerCase().startsWith("rediss+cluster://")) {
    throw new ConfigError("REDIS_URL: TLS to a Redis Cluster (rediss+cluster://) is not supported");
  }
  if (!url?.toLowerCase().startsWith(CLUSTER_SCHEME)) return { redisUrl: url };
  const rest = url.slice(CLUSTER_SCHEME.length).replace(/\/+$/, "");
  const at = rest.lastIndexOf("@");
  const cluster: RedisClusterConfig = { nodes: parseNodes("REDIS_URL", rest.slice(at + 1)) };
  if (at >= 0) {
    const [user, ...password] = rest.slice(0, at).split(":");
    try {
      if (user) cluster.username = decodeURIComponent(user);
      if (password.length) cluster.password = decodeURIComponent(password.join(":"));
    } catch {
      throw new ConfigError("REDIS_URL has a malformed percent-encoding in its credentials");
    }
  }
  return { redisCluster: cluster };
}

function parseNodes(name: string, value: string): RedisClusterConfig["nodes"] {
  const nodes = value.split(",").map((s) => s.trim()).filter(Boolean).map((node) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:/\s\[\]@]+):(\d{1,5})$/.exec(node);
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) {
      throw new ConfigError(`${name} must list cluster nodes as host:port, not "${node}"`);
    }
    return { host: m[1].replace(/^\[(.*)\]$/, "$1"), port };
  });
  if (nodes.length === 0) throw new ConfigError(`${name} names no cluster node`);
  return nodes;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, not "${value}"`);
  }
  return port;
}

function parseInteger(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, not "${value}"`);
  }
  return n;
}

function parseTrustedProxies(value: string | undefined): TrustedProxies {
  try {
    return TrustedProxies.parse(value);
  } catch (err) {
    if (err instanceof TrustedProxiesError) {
      throw new ConfigError(`TRUSTED_PROXIES: ${err.message}`);
    }
    throw err;
  }
}

function parseRole(value: string): Role {
  if (value === "all" || value === "hub" || value === "kernel") return value;
  throw new ConfigError(`ROLE must be all, hub or kernel, not "${value}"`);
}

function parseBaseUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, not "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must use http or https, not "${url.protocol}"`);
  }
  return url.href.replace(/\/+$/, "");
}
