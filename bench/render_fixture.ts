/**
 * The render benchmarks' server and data: the real app (`startServer`, file-backed KV, the real
 * Redis on a random prefix), one partner with a key for one origin, an example project from
 * `examples/projects/` published as version 1, and a minted session token with a budget the
 * benchmark cannot exhaust (so every render runs the budget script, as in production).
 */
import { join } from "node:path";
import { publishProject } from "../lib/hub/publish.ts";
import { createSdkKey } from "../lib/hub/sdk_keys.ts";
import type { Dag } from "../lib/dag/dag_types.ts";
import { type ParameterSchema, validateParameterSchema } from "../lib/dag/parameter_schema.ts";
import { substitute } from "../lib/dag/substitute.ts";
import { loadConfig } from "../lib/config.ts";
import { Logger } from "../lib/ops/logger.ts";
import { createPartner } from "../lib/store/partners.ts";
import { createProject } from "../lib/store/projects.ts";
import { type RunningServer, startServer } from "../lib/app/server.ts";
import manifest from "../manifest.gen.ts";
import { deleteRedisPrefix } from "../tests/_helpers/redis.ts";

/** The Redis every benchmark uses. */
export const BENCH_REDIS_URL = "redis://127.0.0.1:6379";

/** The render path of the manifold kernel. */
export const RENDER_PATH = "/v1/kernels/manifold/render";

/** A published example project: its documents and finished DAGs for given values. */
export interface ExampleProject {
  name: string;
  template: Dag;
  schema: unknown;
  parameters: ParameterSchema;
  /** The template with `values` substituted (defaults for the rest). */
  finish(values?: Record<string, unknown>): Dag;
}

/** Reads `examples/projects/<name>/`. */
export async function readExample(name: string): Promise<ExampleProject> {
  const dir = new URL(`../examples/projects/${name}/`, import.meta.url);
  const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
  const schema = JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir)));
  const parameters = validateParameterSchema(schema);
  return {
    name,
    template,
    schema,
    parameters,
    finish: (values = {}) => substitute(template, parameters, values),
  };
}

/** Where a render request goes and what it carries. */
export interface RenderTarget {
  url: string;
  headers: Record<string, string>;
}

/** Creates partner, key and project `example` in `kv`; returns what a token mint needs. */
export async function createRenderFixture(
  kv: Deno.Kv,
  example: ExampleProject,
): Promise<{ keyId: string; project: string; origin: string }> {
  const partner = await createPartner(kv, "Bench Hardware AG");
  const project = `bench-${example.name}-${crypto.randomUUID().slice(0, 6)}`;
  await createProject(kv, { partnerId: partner.id, slug: project, title: example.name });
  await publishProject(kv, project, { template: example.template, schema: example.schema });
  const origin = "https://shop.bench-hardware.example";
  const { record } = await createSdkKey(kv, {
    partnerId: partner.id,
    label: "bench storefront",
    allowedOrigins: [origin],
    allowedProjects: [project],
    budget: 1_000_000_000,
    rateLimit: { points: 1_000_000, durationSeconds: 60 },
  });
  return { keyId: record.keyId, project, origin };
}

/** Mints a browser-flow token from `baseUrl` and returns the headers a render sends with it. */
export async function mintRenderHeaders(
  baseUrl: string,
  fixture: { keyId: string; project: string; origin: string },
): Promise<Record<string, string>> {
  const res = await fetch(`${baseUrl}/api/v1/sdk/session-tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: fixture.origin },
    body: JSON.stringify({ keyId: fixture.keyId, projectId: fixture.project }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`mint answered ${res.status}: ${text.slice(0, 300)}`);
  return {
    "content-type": "application/json",
    origin: fixture.origin,
    authorization: `Bearer ${JSON.parse(text).token}`,
  };
}

/** An in-process render server loaded with one example project. */
export interface RenderBenchServer {
  server: RunningServer;
  example: ExampleProject;
  target: RenderTarget;
  prefix: string;
  /** The partner's key and project: `mintRenderHeaders(server.url, fixture)` mints another token. */
  fixture: { keyId: string; project: string; origin: string };
  close(): Promise<number>;
}

/** Starts the app in this process with `example` published and a token minted. */
export async function startRenderBenchServer(
  exampleName: string,
  env: Record<string, string> = {},
): Promise<RenderBenchServer> {
  const dir = await Deno.makeTempDir({ prefix: "cadcfg-bench-" });
  const prefix = `bench:${crypto.randomUUID().slice(0, 8)}:`;
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: join(dir, "hub.kv"),
    REDIS_URL: BENCH_REDIS_URL,
    REDIS_PREFIX: prefix,
    SEED_DEMO: "false",
    LOG_LEVEL: "warn",
    ...env,
  });
  const server = await startServer(config, manifest, { log: new Logger("warn") });
  const example = await readExample(exampleName);
  const fixture = await createRenderFixture(server.deps.kv, example);
  const headers = await mintRenderHeaders(server.url, fixture);
  return {
    server,
    example,
    prefix,
    fixture,
    target: { url: server.url + RENDER_PATH, headers },
    async close() {
      try {
        await server.close();
        return await deleteRedisPrefix(BENCH_REDIS_URL, prefix);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}

/** POSTs one render of `dag`; throws unless it answers 200. Returns the parsed body and length. */
export async function renderOnce(
  target: RenderTarget,
  dag: Dag,
  have?: string[],
): Promise<{ body: RenderBody; chars: number }> {
  const res = await fetch(target.url, {
    method: "POST",
    headers: target.headers,
    body: JSON.stringify(have ? { dag, have } : { dag }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`render answered ${res.status}: ${text.slice(0, 500)}`);
  return { body: JSON.parse(text), chars: text.length };
}

/** The parts of a render response the benchmarks look at. */
export interface RenderBody {
  cache: "l1" | "l2" | "miss";
  dagHash: string;
  scene: { triangles: number; volume: number; parts: { mesh: string }[] };
  meshes: Record<string, { positions: string; indices: string }>;
}
