/**
 * A deadline on every Redis command of the process, installed once on the client (client.ts), so
 * budgets, revocations, rate limits, the sign-in throttle, the L2 cache and readiness all get it
 * without code of their own.
 *
 * Why not node-redis's `timeout` command option alone: in node-redis 5 it only bounds a command's
 * wait to be *written* (`commandsToWrite` in client/commands-queue.js drops the timer as the
 * command goes on the wire), so a command sent to a server that stopped answering (`SIGSTOP`, a
 * partition, a hung primary: the kernel still accepts the bytes) waits for its reply without
 * bound; and MULTI and pipelines (`_executeMulti`, `_executePipeline`) take no options at all.
 * So the three ways into node-redis's command queue are wrapped here. A command that misses its
 * deadline stays in node-redis's reply queue, so a late reply is still matched to it (replies keep
 * their order); only its caller stopped waiting.
 *
 * After a miss the connection is presumed stalled and every command fails at once, without being
 * written, until the server answers again (a late reply arrives) or node-redis has a new
 * connection ready. Writing nothing is also what gets a dead connection replaced: node-redis's
 * `socketTimeout` is an idle timeout and every write restarts it (Node's and Deno's `node:net`
 * alike), so it only fires, destroying the socket and reconnecting, once the writes stop.
 */
import {
  AbortError,
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  RootNodesUnavailableError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from "redis";
import { AppError } from "../http/problem.ts";
import type { createClient } from "redis";

// client.ts's RedisServerClient, named from the package so that this file stays below client.ts.
type RedisServerClient = ReturnType<typeof createClient>;

/** Redis did not answer in time, or is not connected: fail closed or degrade, never wait. */
export class RedisUnavailableError extends AppError {
  /** A 503 `service_unavailable` with `Retry-After: 1`, for any caller that does not catch it. */
  constructor(detail: string, cause?: unknown) {
    super("service_unavailable", detail, { cause, headers: { "Retry-After": "1" } });
    this.name = "RedisUnavailableError";
  }
}

/** What the owner of the client hears about stalls (for one log line per outage). */
export interface DeadlineEvents {
  /** A command missed its deadline: commands now fail at once. */
  stalled?(timeoutMs: number): void;
  /** The server answered again after a stall. */
  answered?(): void;
}

type Enqueue = (...args: unknown[]) => Promise<unknown>;

/** A command sent and not yet answered: when it was sent, and how to fail its caller. */
interface Waiting {
  since: number;
  reject: (err: unknown) => void;
}

/** The node-redis internals the deadline wraps (see the module comment for why each). */
interface CommandEntryPoints {
  sendCommand: Enqueue;
  _executeMulti: Enqueue;
  _executePipeline: Enqueue;
  readonly isReady: boolean;
}

const ENTRY_POINTS = ["sendCommand", "_executeMulti", "_executePipeline"] as const;

/** How late a deadline timer may fire before the lateness is blamed on this process, not Redis. */
export const LATE_TIMER_MS = 20;

/**
 * Makes every command of `client` settle within `timeoutMs`: a reply, a Redis error reply, or a
 * `RedisUnavailableError`.
 *
 * @example
 * ```ts
 * const client = createClient({ url, disableOfflineQueue: true, socket: { socketTimeout: 2400 } });
 * enforceDeadlines(client, 500);
 * await client.get("k"); // a reply, or RedisUnavailableError after 500 ms at most
 * ```
 */
export function enforceDeadlines(
  client: RedisServerClient,
  timeoutMs: number,
  events: DeadlineEvents = {},
): void {
  // createClient returns an object whose prototype is the client; the command methods call
  // `this._self.sendCommand`, so the wrappers go on `_self` for every path to see them.
  const self = (client as unknown as { _self: CommandEntryPoints })._self;
  for (const name of ENTRY_POINTS) {
    if (typeof self?.[name] !== "function") {
      throw new Error(`node-redis has no ${name}; Redis deadlines cannot be installed`);
    }
  }
  let stalled = false;
  const answered = () => {
    if (!stalled) return;
    stalled = false;
    events.answered?.();
  };
  // Every command is sent with this signal: at the first miss it drops what node-redis still holds
  // unwritten (its caller is told it failed, so it must never reach Redis later).
  const unwritten = new DropSignal();
  const withUnwritten = { abortSignal: unwritten as unknown as AbortSignal };
  const missed = () => {
    if (stalled) return;
    stalled = true;
    unwritten.drop();
    events.stalled?.(timeoutMs);
  };
  // A new connection is ready only once its handshake (CLIENT SETINFO) was answered.
  client.on("ready", answered);

  // Commands waiting for a reply, oldest first: every one has the same deadline, so insertion
  // order is deadline order and one timer, armed for the oldest, serves them all (a timer per
  // command cost a few per cent of a mint's CPU).
  const waiting = new Set<Waiting>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (timer !== undefined) return;
    const oldest = waiting.values().next().value;
    if (oldest) {
      timer = setTimeout(sweep, Math.max(0, oldest.since + timeoutMs - performance.now()));
    }
  };
  const sweep = (recheck = false) => {
    timer = undefined;
    const now = performance.now();
    for (const w of waiting) {
      if (now - w.since < timeoutMs) break;
      // A timer that fires late means this process was busy (a long synchronous task): the
      // reply may be waiting unread, so let the event loop read the socket once more first.
      if (!recheck && now - w.since > timeoutMs + LATE_TIMER_MS) {
        timer = setTimeout(() => sweep(true), 0);
        return;
      }
      waiting.delete(w);
      missed();
      w.reject(new RedisUnavailableError(`Redis did not answer within ${timeoutMs} ms.`));
    }
    arm();
  };

  /** Takes an answered command off the list; false when it had expired already. */
  const settle = (w: Waiting): boolean => {
    if (!waiting.delete(w)) return false;
    // Nothing left to watch: no timer outlives the last command (an idle process holds none).
    if (waiting.size === 0 && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    return true;
  };

  const guard = (send: () => Promise<unknown>, offlineCheck: boolean): Promise<unknown> => {
    if (stalled) {
      return Promise.reject(new RedisUnavailableError("Redis is not answering; retry shortly."));
    }
    // sendCommand refuses while reconnecting (disableOfflineQueue); MULTI and pipelines would
    // queue and be sent later, after their caller has been told they failed.
    if (offlineCheck && !self.isReady) {
      return Promise.reject(new RedisUnavailableError("Redis is not connected; retry shortly."));
    }
    let reply: Promise<unknown>;
    try {
      reply = send();
    } catch (err) {
      return Promise.reject(unavailable(err));
    }
    return new Promise((resolve, reject) => {
      const w: Waiting = { since: performance.now(), reject };
      waiting.add(w);
      arm();
      reply.then(
        (value) => {
          // Already expired, its caller was told it failed: the late reply only says Redis lives.
          const live = settle(w);
          answered();
          if (live) resolve(value);
        },
        (err) => {
          const live = settle(w);
          // An error reply is an answer (NOSCRIPT, WRONGTYPE…): the server is alive.
          if (err instanceof ErrorReply) answered();
          if (live) reject(unavailable(err));
        },
      );
    });
  };

  for (const name of ENTRY_POINTS) {
    const original = self[name];
    self[name] = name === "sendCommand"
      ? function (this: unknown, command: unknown, ...rest: unknown[]) {
        const options = rest[0] as { abortSignal?: AbortSignal } | undefined;
        const withSignal = options === undefined
          ? withUnwritten
          : { ...options, abortSignal: options.abortSignal ?? withUnwritten.abortSignal };
        return guard(() => original.call(this, command, withSignal), false);
      }
      : function (this: unknown, ...args: unknown[]) {
        return guard(() => original.apply(this, args), true);
      };
  }
}

/**
 * The part of an `AbortSignal` node-redis uses on a queued command (commands-queue.js: `aborted`,
 * and one "abort" listener added as the command is queued and removed as it is written), at the
 * cost of a set insertion and deletion: an `AbortSignal` costs EventTarget's bookkeeping on every
 * command, a quarter of this deadline's own cost per command at 32 concurrent callers
 * (docs/performance.md). It is never `aborted`, so one serves every command of the client: `drop`
 * fails the commands queued at that moment, and node-redis removes a command's listener as it
 * writes it, so nothing already on the wire is touched.
 */
class DropSignal {
  readonly aborted = false;
  #listeners = new Set<() => void>();

  addEventListener(_type: "abort", listener: () => void): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    this.#listeners.delete(listener);
  }

  /** Runs every listener once (node-redis takes its command off the queue and rejects it). */
  drop(): void {
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) listener();
  }
}

/** Error replies pass through unchanged; connection failures become `RedisUnavailableError`. */
export function unavailable(err: unknown): unknown {
  if (err instanceof ErrorReply || err instanceof AppError) return err;
  if (!CONNECTION_ERRORS.some((type) => err instanceof type)) return err;
  return new RedisUnavailableError("Redis is not reachable; retry shortly.", err);
}

// node-redis's errors for "no connection / no answer" (lib/errors.js; they set no `name`).
const CONNECTION_ERRORS = [
  AbortError, // dropped unwritten at a miss (above)
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  RootNodesUnavailableError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
];
