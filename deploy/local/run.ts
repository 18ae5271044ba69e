/**
 * The local cluster of docs/deploy.md, without Docker: Redis (the running one, or its own), a hub,
 * three kernel nodes and HAProxy in front, as declared in deploy/local/Procfile and
 * deploy/local/haproxy.cfg. Each process's output is printed with its name in front, as foreman
 * does; Ctrl-C stops them all. tests/e2e/load_balancer_test.ts starts it with `startLocalCluster`
 * on free ports.
 *
 * Run: deno task cluster:local   (or: deno run -A deploy/local/run.ts [--free-ports])
 * Environment (all optional): LB_PORT (8080), HUB_PORT (8001), KERNEL_1_PORT … KERNEL_3_PORT
 * (8011–8013), REDIS_URL (default: 127.0.0.1:6379 if it answers, else its own redis-server on
 * REDIS_PORT, 6390), KV_PATH (data/local-cluster/hub.kv), REDIS_PREFIX (cadcfg:), SEED_DEMO
 * (true), RENDER_WORKERS per kernel (1).
 */

const ROOT = new URL("../../", import.meta.url).pathname;
const PROCFILE = new URL("./Procfile", import.meta.url).pathname;

/** How to start the cluster. */
export interface LocalClusterOptions {
  /** Variables for the Procfile and haproxy.cfg; unset ones take the defaults above. */
  env?: Record<string, string>;
  /** Pick a free loopback port for every `*_PORT` not given in `env` (tests). */
  freePorts?: boolean;
  /** Where output lines go, `name | line` (default: stdout). */
  log?: (line: string) => void;
  /** Longest wait for one process to be ready, in ms (default 60 s). */
  readyTimeoutMs?: number;
}

/** One process of the Procfile, running. */
export interface ClusterProcess {
  name: string;
  pid: number;
  child: Deno.ChildProcess;
}

/** A running local cluster. */
export interface LocalCluster {
  /** The load balancer's URL: the one origin partners and browsers use. */
  url: string;
  /** The variables the processes were started with (ports, REDIS_URL, KV_PATH, …). */
  env: Record<string, string>;
  processes: Map<string, ClusterProcess>;
  /** Sends one command to HAProxy's admin socket and returns its answer. */
  haproxy(command: string): Promise<string>;
  /** HAProxy's view of a backend's servers: name → status (`UP`, `DOWN`, `MAINT`, …). */
  serverStatus(backend: string): Promise<Record<string, string>>;
  /** Stops every process (SIGTERM, SIGKILL after 5 s), in reverse order. */
  stop(): Promise<void>;
}

/** The Procfile's entries in order: name and command. */
export async function readProcfile(path = PROCFILE): Promise<{ name: string; command: string }[]> {
  const text = await Deno.readTextFile(path);
  return text.split("\n")
    .filter((line) => line.trim() && !line.trimStart().startsWith("#"))
    .map((line) => {
      const colon = line.indexOf(":");
      return { name: line.slice(0, colon).trim(), command: line.slice(colon + 1).trim() };
    });
}

/** The `start` task of deno.json with this Deno's path (`… run -A --v8-flags=… main.ts`). */
async function denoStart(): Promise<string> {
  const json = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const words = String(json.tasks?.start ?? "").trim().split(/\s+/);
  if (words[0] !== "deno") throw new Error(`deno.json's start task is not "deno …"`);
  return [Deno.execPath(), ...words.slice(1)].join(" ");
}

function freePort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  return port;
}

async function redisAnswers(host: string, port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: host, port });
    try {
      await conn.write(new TextEncoder().encode("PING\r\n"));
      const buf = new Uint8Array(16);
      const n = await conn.read(buf);
      return new TextDecoder().decode(buf.subarray(0, n ?? 0)).startsWith("+PONG");
    } finally {
      conn.close();
    }
  } catch {
    return false;
  }
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The variables of the Procfile and haproxy.cfg, from `options.env` and the defaults. */
async function clusterEnv(options: LocalClusterOptions): Promise<Record<string, string>> {
  const given = { ...options.env };
  const port = (name: string, fallback: number) =>
    given[name] ?? String(options.freePorts ? freePort() : fallback);
  const env: Record<string, string> = {
    LB_PORT: port("LB_PORT", 8080),
    HUB_PORT: port("HUB_PORT", 8001),
    KERNEL_1_PORT: port("KERNEL_1_PORT", 8011),
    KERNEL_2_PORT: port("KERNEL_2_PORT", 8012),
    KERNEL_3_PORT: port("KERNEL_3_PORT", 8013),
    REDIS_PORT: port("REDIS_PORT", 6390),
    KV_PATH: given.KV_PATH ?? `${ROOT}data/local-cluster/hub.kv`,
    REDIS_PREFIX: given.REDIS_PREFIX ?? "cadcfg:",
    SEED_DEMO: given.SEED_DEMO ?? "true",
    RENDER_WORKERS: given.RENDER_WORKERS ?? "1",
    DENO_START: await denoStart(),
  };
  env.LB_URL = `http://127.0.0.1:${env.LB_PORT}`;
  env.HUB_INTERNAL_URL = `http://127.0.0.1:${env.HUB_PORT}`;
  env.LB_BIND = `127.0.0.1:${env.LB_PORT}`;
  env.HUB_ADDR = `127.0.0.1:${env.HUB_PORT}`;
  for (const n of [1, 2, 3]) env[`KERNEL_${n}_ADDR`] = `127.0.0.1:${env[`KERNEL_${n}_PORT`]}`;
  env.HAPROXY_SOCKET = given.HAPROXY_SOCKET ??
    `${await Deno.makeTempDir({ prefix: "cad-haproxy-" })}/admin.sock`;
  if (given.REDIS_URL) env.REDIS_URL = given.REDIS_URL;
  else if (await redisAnswers("127.0.0.1", 6379)) env.REDIS_URL = "redis://127.0.0.1:6379";
  return { ...given, ...env };
}

/** Sends `command` to HAProxy's admin socket at `path`. */
async function adminCommand(path: string, command: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path });
  try {
    await conn.write(new TextEncoder().encode(`${command}\n`));
    let out = "";
    const buf = new Uint8Array(64 * 1024);
    const dec = new TextDecoder();
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      out += dec.decode(buf.subarray(0, n));
    }
    return out;
  } finally {
    conn.close();
  }
}

async function statuses(socket: string, backend: string): Promise<Record<string, string>> {
  const csv = await adminCommand(socket, "show stat");
  const [header, ...rows] = csv.split("\n").filter(Boolean);
  const cols = header.replace(/^# /, "").split(",");
  const [px, sv, st] = ["pxname", "svname", "status"].map((c) => cols.indexOf(c));
  const out: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(",");
    if (cells[px] === backend && !["FRONTEND", "BACKEND"].includes(cells[sv])) {
      out[cells[sv]] = cells[st];
    }
  }
  return out;
}

/** Waits until `probe` is true, or throws naming `what`. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      throw new Error(`local cluster: ${what} not ready in ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the Procfile's processes in order, each once the previous is ready (Redis answers PING,
 * a server's /readyz is 200, HAProxy sees every server UP), and returns the running cluster.
 *
 * @example
 * ```ts
 * const cluster = await startLocalCluster({ freePorts: true, env: { SEED_DEMO: "false" } });
 * await fetch(`${cluster.url}/readyz`);
 * await cluster.stop();
 * ```
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const env = await clusterEnv(options);
  const log = options.log ?? ((line: string) => console.log(line));
  const timeout = options.readyTimeoutMs ?? 60_000;
  const processes = new Map<string, ClusterProcess>();
  const pumps: Promise<void>[] = [];
  const cluster: LocalCluster = {
    url: env.LB_URL,
    env,
    processes,
    haproxy: (command) => adminCommand(env.HAPROXY_SOCKET, command),
    serverStatus: (backend) => statuses(env.HAPROXY_SOCKET, backend),
    async stop() {
      for (const proc of [...processes.values()].reverse()) {
        try {
          proc.child.kill("SIGTERM");
        } catch {
          continue; // already gone
        }
        const killer = setTimeout(() => {
          try {
            proc.child.kill("SIGKILL");
          } catch {
            // gone meanwhile
          }
        }, 5000);
        await proc.child.status;
        clearTimeout(killer);
      }
      await Promise.allSettled(pumps);
    },
  };
  try {
    for (const { name, command } of await readProcfile()) {
      if (name === "redis" && env.REDIS_URL) continue;
      if (name === "redis") env.REDIS_URL = `redis://127.0.0.1:${env.REDIS_PORT}`;
      if (name === "hub") await Deno.mkdir(dirname(env.KV_PATH), { recursive: true });
      const child = new Deno.Command("sh", {
        args: ["-c", `exec ${command}`],
        cwd: ROOT,
        env,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      processes.set(name, { name, pid: child.pid, child });
      for (const stream of [child.stdout, child.stderr]) pumps.push(prefixLines(name, stream, log));
      await until(name, () => ready(name, env, child), timeout);
      log(`${name.padEnd(7)} | ready (pid ${child.pid})`);
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** Whether process `name` is ready to be depended on. */
async function ready(
  name: string,
  env: Record<string, string>,
  child: Deno.ChildProcess,
): Promise<boolean> {
  const exited = await Promise.race([child.status, Promise.resolve(undefined)]);
  if (exited) throw new Error(`local cluster: ${name} exited with ${exited.code}`);
  if (name === "redis") return await redisAnswers("127.0.0.1", Number(env.REDIS_PORT));
  if (name === "hub") return await httpOk(`${env.HUB_INTERNAL_URL}/readyz`);
  const kernel = /^kernel(\d+)$/.exec(name);
  if (kernel) return await httpOk(`http://${env[`KERNEL_${kernel[1]}_ADDR`]}/readyz`);
  if (name === "lb") {
    try {
      const [hub, kernels] = await Promise.all([
        statuses(env.HAPROXY_SOCKET, "hub"),
        statuses(env.HAPROXY_SOCKET, "kernels"),
      ]);
      return [...Object.values(hub), ...Object.values(kernels)].every((s) => s === "UP");
    } catch {
      return false; // the socket is not there yet
    }
  }
  return true;
}

function dirname(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/"))) || ".";
}

async function prefixLines(
  name: string,
  stream: ReadableStream<Uint8Array>,
  log: (line: string) => void,
): Promise<void> {
  let rest = "";
  const dec = new TextDecoder();
  for await (const bytes of stream) {
    const lines = (rest + dec.decode(bytes, { stream: true })).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) log(`${name.padEnd(7)} | ${line}`);
  }
  if (rest) log(`${name.padEnd(7)} | ${rest}`);
}

if (import.meta.main) {
  const cluster = await startLocalCluster({
    freePorts: Deno.args.includes("--free-ports"),
    env: Deno.env.toObject(),
  });
  console.log(
    `\nlocal cluster up: ${cluster.url} (hub ${cluster.env.HUB_INTERNAL_URL}, kernels ` +
      `${[1, 2, 3].map((n) => cluster.env[`KERNEL_${n}_ADDR`]).join(", ")}, Redis ` +
      `${cluster.env.REDIS_URL}). Ctrl-C stops it.`,
  );
  const stop = async () => {
    await cluster.stop();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
