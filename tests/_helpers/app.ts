/**
 * The app in memory, as Fresh and Hono test handlers: no port, no socket, no Redis. `:memory:`
 * Deno KV, `REDIS_URL` unset (the in-process equivalents of rate limits, budgets and the L2
 * cache), the real route manifest, and a clock that stands still unless the test moves it. Use it
 * for every handler whose point is not a real part; real Redis, worker processes, Chromium and
 * sockets stay with `startTestServer` (./server.ts).
 *
 * Requests carry a socket peer (`127.0.0.1` unless given), as `Deno.serve` hands one to the
 * handler, so per-client limits (lib/http/client_ip.ts) see what they see behind a real socket.
 */
import type { Hono } from "hono";
import { createApp } from "@/lib/app/app.ts";
import type { AppDeps, AppEnv } from "@/lib/app/context.ts";
import { buildDeps } from "@/lib/app/server.ts";
import { type Config, loadConfig } from "@/lib/config.ts";
import { type DemoSeed, seedDemo } from "@/lib/hub/demo_seed.ts";
import { Logger } from "@/lib/ops/logger.ts";
import manifest from "@/manifest.gen.ts";

/** The origin in-memory requests are addressed to (Hono's default for a bare path). */
export const APP_URL = "http://localhost";

/** A `fetch` with the global one's signature, answered by the app in memory. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The app in memory and what tests reach into. */
export interface TestApp {
  app: Hono<AppEnv>;
  deps: AppDeps;
  config: Config;
  /** Every log line the app wrote (JSON, debug level and up). */
  logs: string[];
  /** The origin requests go to (`http://localhost`): the base of full URLs and the hub's origin. */
  url: string;
  /** The demo partner, projects and key (with `seedDemo: true`). */
  demo?: DemoSeed;
  /** Answers `path` (or a full URL of `url`, or a `Request`) in memory, as `app.request` does. */
  request(path: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The same as `request`, with the global `fetch`'s signature (for clients that take one). */
  fetch: Fetch;
  /** POSTs `body` (JSON unless a string) to the mint endpoint. */
  mint(body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Flushes usage counters and closes the render pool and KV (unless the test passed its own). */
  close(): Promise<void>;
}

/** What a test may set. */
export interface TestAppOptions {
  /** Extra environment (e.g. `PUBLIC_URL`, `ROLE`); `REDIS_URL` is never set here. */
  env?: Record<string, string>;
  /** Milliseconds since the epoch; default: the time the app was built, standing still. */
  clock?: () => number;
  /** A KV the test opened (left open by `close`); default a fresh `:memory:` KV. */
  kv?: Deno.Kv;
  /** The socket peer of every request (default `127.0.0.1`). */
  remoteAddr?: string;
  /** Seeds the demo partner, example projects and a key allowed for `url` (as `SEED_DEMO`). */
  seedDemo?: boolean;
}

/**
 * Builds the app in memory.
 *
 * @example
 * ```ts
 * const t = await createTestApp();
 * try {
 *   const res = await t.request("/healthz");
 *   assert.equal(res.status, 200);
 * } finally {
 *   await t.close();
 * }
 * ```
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: ":memory:",
    SEED_DEMO: "false",
    LOG_LEVEL: "debug",
    ...options.env,
  });
  if (config.redisUrl) throw new Error("createTestApp runs without Redis: use startTestServer");
  const logs: string[] = [];
  const log = new Logger("debug", (line) => logs.push(line));
  const frozen = Date.now();
  const clock = options.clock ?? (() => frozen);
  const deps = await buildDeps(config, { log, clock, kv: options.kv });
  const app = createApp(deps, manifest);
  const env = { remoteAddr: { hostname: options.remoteAddr ?? "127.0.0.1" } };
  const request = (input: string | URL | Request, init?: RequestInit) =>
    Promise.resolve(
      app.request(input instanceof URL ? input.href : input, init, env),
    );
  const demo = options.seedDemo && config.role !== "kernel"
    ? await seedDemo(deps.kv, [APP_URL])
    : undefined;
  return {
    app,
    deps,
    config,
    logs,
    url: APP_URL,
    demo,
    request,
    fetch: request,
    mint: (body, headers = {}) =>
      request("/api/v1/sdk/session-tokens", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    async close() {
      await deps.usage?.flush();
      await deps.render?.close();
      if (!options.kv) deps.kv.close();
    },
  };
}
