/**
 * Test servers: the real app on an ephemeral port, `:memory:` KV, and the real Redis on a random
 * key prefix (removed afterwards). Each test creates its own partner, project and key.
 */
import { createClient } from "redis";
import { type Config, loadConfig } from "@/lib/config.ts";
import { createSdkKey, type CreateSdkKeyInput } from "@/lib/hub/sdk_keys.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { createPartner } from "@/lib/store/partners.ts";
import { createProject } from "@/lib/store/projects.ts";
import { type RunningServer, startServer } from "@/lib/web/server.ts";

/** The Redis the tests use (a real server; CI starts one). */
export const TEST_REDIS_URL = Deno.env.get("TEST_REDIS_URL") ?? "redis://127.0.0.1:6379";

/** A random suffix for test ids. */
export function rid(bytes = 4): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** A running test server plus captured log lines. */
export interface TestServer extends RunningServer {
  logs: string[];
  config: Config;
}

/** Starts the app on port 0 with `:memory:` KV and (unless `redis: false`) the real Redis. */
export async function startTestServer(
  options: { redis?: boolean; env?: Record<string, string>; clock?: () => number } = {},
): Promise<TestServer> {
  const prefix = `test:${rid(6)}:`;
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: ":memory:",
    SEED_DEMO: "false",
    LOG_LEVEL: "debug",
    REDIS_PREFIX: prefix,
    ...(options.redis === false ? {} : { REDIS_URL: TEST_REDIS_URL }),
    ...options.env,
  });
  const logs: string[] = [];
  const log = new Logger("debug", (line) => logs.push(line));
  const server = await startServer(config, { log, clock: options.clock });
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

/** Deletes every Redis key under `prefix`. */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      keys.push(...batch);
    }
    if (keys.length) await client.del(keys);
  } finally {
    await client.close();
  }
}

/** A partner with one project and one key, as a test fixture. */
export interface KeyFixture {
  partnerId: string;
  project: string;
  keyId: string;
  key: string;
  origin: string;
}

/** Creates a partner, a project and a key for `origin` (overrides go to the key). */
export async function createKeyFixture(
  kv: Deno.Kv,
  overrides: Partial<CreateSdkKeyInput> = {},
): Promise<KeyFixture> {
  const partner = await createPartner(kv, `Partner ${rid()}`);
  const project = `proj-${rid()}`;
  await createProject(kv, { partnerId: partner.id, slug: project, title: "Test project" });
  const origin = `https://shop-${rid()}.example`;
  const { key, record } = await createSdkKey(kv, {
    partnerId: partner.id,
    label: "test key",
    allowedOrigins: [origin],
    allowedProjects: [project],
    ...overrides,
  });
  return {
    partnerId: partner.id,
    project,
    keyId: record.keyId,
    key,
    origin: record.allowedOrigins[0],
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
