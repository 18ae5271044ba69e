/**
 * deadline.ts for a Redis Cluster client. node-redis keeps one client per cluster node (made at
 * discovery, and again after a topology change) and sends each command to the master of its key's
 * slot. Each node client gets `enforceDeadlines` as it is handed out, so a stalled or unreachable
 * master fails the commands of its slots at once while the other masters serve theirs. On top,
 * each cluster command as a whole (the wait for a node's first connection, MOVED and ASK
 * redirections included) and each MULTI or pipeline settles within the same deadline, and a
 * node whose first connection missed it fails the commands of its slots at once until it connects.
 */
import type { createClient, createCluster } from "redis";
import { enforceDeadlines, LATE_TIMER_MS, RedisUnavailableError, unavailable } from "./deadline.ts";

// client.ts's types, named from the package so that this file stays below client.ts.
type RedisServerClient = ReturnType<typeof createClient>;
type RedisClusterClient = ReturnType<typeof createCluster>;

/** What the owner of the cluster client hears about each node (for one log line per outage). */
export interface ClusterDeadlineEvents {
  /** A command to the node at `address` (`host:port`) missed its deadline. */
  stalled?(address: string, timeoutMs: number): void;
  /** The node at `address` answered again after a stall, or has a new connection ready. */
  answered?(address: string): void;
}

type Call = (...args: unknown[]) => Promise<unknown>;

interface SlotNode {
  address: string;
  client?: RedisServerClient;
  connectPromise?: Promise<RedisServerClient>;
}

interface MultiCommand {
  exec: Call;
  EXEC: Call;
  execAsPipeline: Call;
}

/** The node-redis cluster internals the deadline wraps (see the module comment for why each). */
interface ClusterInternals {
  _execute: Call;
  MULTI: (...args: unknown[]) => MultiCommand;
  multi: (...args: unknown[]) => MultiCommand;
  _slots: { nodeClient(node: SlotNode): Promise<RedisServerClient> };
  readonly isOpen: boolean;
}

/**
 * Makes every command of `cluster` settle within `timeoutMs`: a reply, a Redis error reply, or a
 * `RedisUnavailableError`, per node: a stalled master fails only the commands of its own slots.
 *
 * @example
 * ```ts
 * const cluster = createCluster({ rootNodes, defaults: { disableOfflineQueue: true } });
 * enforceClusterDeadlines(cluster, 500);
 * await cluster.get("k"); // a reply, or RedisUnavailableError after 500 ms at most
 * ```
 */
export function enforceClusterDeadlines(
  cluster: RedisClusterClient,
  timeoutMs: number,
  events: ClusterDeadlineEvents = {},
): void {
  const self = (cluster as unknown as { _self: ClusterInternals })._self;
  const slots = self?._slots;
  if (
    typeof self?._execute !== "function" || typeof self.MULTI !== "function" ||
    typeof slots?.nodeClient !== "function"
  ) {
    throw new Error("node-redis cluster internals changed; Redis deadlines cannot be installed");
  }
  const guarded = new WeakSet<object>();
  // First connections that missed a deadline: later commands for their slots fail at once.
  const missedConnects = new WeakSet<Promise<unknown>>();

  const guard = (node: SlotNode, client: RedisServerClient): RedisServerClient => {
    const instance = (client as unknown as { _self?: object })._self ?? client;
    if (guarded.has(instance)) return client;
    guarded.add(instance);
    enforceDeadlines(client, timeoutMs, {
      stalled: (ms) => events.stalled?.(node.address, ms),
      answered: () => events.answered?.(node.address),
    });
    client.on("ready", () => events.answered?.(node.address));
    return client;
  };

  const nodeClient = slots.nodeClient;
  slots.nodeClient = function (this: unknown, node: SlotNode) {
    // Connected (or reconnecting: its commands then fail at once, disableOfflineQueue).
    if (node.client && !node.connectPromise) return Promise.resolve(guard(node, node.client));
    const connecting = nodeClient.call(this, node);
    if (missedConnects.has(connecting)) {
      return Promise.reject(
        new RedisUnavailableError(`Redis node ${node.address} is not connected; retry shortly.`),
      );
    }
    return settleWithin(
      connecting.then((client) => guard(node, client)),
      timeoutMs,
      () => missedConnects.add(connecting),
    );
  };

  const execute = self._execute;
  self._execute = function (this: unknown, ...args: unknown[]) {
    if (!self.isOpen) {
      return Promise.reject(new RedisUnavailableError("Redis is not connected; retry shortly."));
    }
    return settleWithin(execute.apply(this, args), timeoutMs);
  };

  const createMulti = self.MULTI;
  self.MULTI = self.multi = function (this: unknown, ...args: unknown[]) {
    const multi = createMulti.apply(this, args);
    const exec = multi.exec;
    const execAsPipeline = multi.execAsPipeline;
    multi.exec = multi.EXEC = (...a: unknown[]) => settleWithin(exec.apply(multi, a), timeoutMs);
    multi.execAsPipeline = (...a: unknown[]) =>
      settleWithin(execAsPipeline.apply(multi, a), timeoutMs);
    return multi;
  };
}

/**
 * `work`'s outcome, or a `RedisUnavailableError` once `timeoutMs` passed (`missed` is told). The
 * expiry waits one more turn of the event loop: the node's own deadline, started a moment later
 * with the same length, settles first and marks its node stalled before the caller hears of it,
 * and a timer that fires late lets the sockets be read once more (as in deadline.ts).
 */
function settleWithin<T>(work: Promise<T>, timeoutMs: number, missed?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const since = performance.now();
    const expire = () => {
      missed?.();
      reject(new RedisUnavailableError(`Redis did not answer within ${timeoutMs} ms.`));
    };
    let timer = setTimeout(() => {
      const late = performance.now() - since > timeoutMs + LATE_TIMER_MS;
      timer = setTimeout(late ? () => (timer = setTimeout(expire, 0)) : expire, 0);
    }, timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(unavailable(err));
      },
    );
  });
}
