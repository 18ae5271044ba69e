/**
 * Test servers: the real app on an ephemeral port, `:memory:` KV, and the real Redis on a random
 * key prefix (removed afterwards). Each test creates its own partner, project and key.
 */
import { type Config, loadConfig } from "@/lib/config.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { type RunningServer, startServer } from "@/lib/app/server.ts";
import manifest from "@/manifest.gen.ts";

export { deleteRedisPrefix, rid, TEST_REDIS_URL } from "./redis.ts";
export { createKeyFixture, type KeyFixture } from "./fixtures.ts";
import { deleteRedisPrefix, rid, TEST_REDIS_URL } from "./redis.ts";

/** A running test server plus captured log lines. */
export interface TestServer extends RunningServer {
  logs: string[];
  config: Config;
}

/** Starts the app on port 0 with `:memory:` KV and (unless `redis: false`) the real Redis. */
export async function startTestServer(
  options: { redis?: boolean; env?: Record<string, string>; clock?: () => number; kv?: Deno.Kv } =
    {},
): Promise<TestServer> {
  const prefix = `test:${rid(6)}:`;
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: ":memory:",
    SEED_DEMO: "false",
    LOG_LEVEL: "debug",
    REDIS_PREFIX: prefix,
    // The suite runs many servers, workers and browsers at once on 2 CPUs: a render may wait for
    // a worker (and its first wasm compile) past the product's 10 s deadline. Tests of admission
    // and deadlines set their own values.
    RENDER_DEADLINE_MS: "60000",
    RENDER_QUEUE_WAIT_MS: "60000",
    ...(options.redis === false ? {} : { REDIS_URL: TEST_REDIS_URL }),
    ...options.env,
  });
  const logs: string[] = [];
  const log = new Logger("debug", (line) => logs.push(line));
  const server = await startServer(config, manifest, { log, clock: options.clock, kv: options.kv });
  const close = server.close;
  return {
    ...server,
    config,
    logs,
    async close() {
      await close();
      if (config.redisUrl) await deleteRedisPrefix(config.redisUrl, prefix);
    },
  };
}

/** POSTs JSON to the mint endpoint. */
export function mint(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/api/v1/sdk/session-tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
