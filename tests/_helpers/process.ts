/**
 * Running the product's real entry points (`main.ts`, `cli.ts`) as subprocesses, for tests and
 * benchmarks: the server starts with the same `deno` arguments as `deno task start` (deno.json),
 * so a test or a figure of the whole process includes its V8 flags.
 */

const ROOT = new URL("../../", import.meta.url).pathname;

/** Runs `deno task hub …` equivalently (`deno run -A cli.ts …`) with `env`. */
export async function runHubCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli.ts", ...args],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** The arguments of deno.json's `start` task after `deno` (e.g. `run -A --v8-flags=… main.ts`). */
export async function startTaskArgs(): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const words = String(json.tasks?.start ?? "").trim().split(/\s+/);
  if (words[0] !== "deno" || words.at(-1) !== "main.ts") {
    throw new Error(`deno.json's start task is not "deno … main.ts": ${json.tasks?.start}`);
  }
  return words.slice(1);
}

/** A running `main.ts` subprocess. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size of the process now, in bytes (Linux `/proc/<pid>/status` VmRSS). */
  rss(): Promise<number>;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the `start` task's command with `env` on an ephemeral port and waits until it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: await startTaskArgs(),
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const dec = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += dec.decode(chunk);
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  while (!url) {
    const m = /"msg":"listening","url":"([^"]+)"/.exec(text);
    if (m) url = m[1];
    else if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start:\n${text}`);
    } else await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid,
    async rss() {
      const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
      const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
      if (!kb) throw new Error(`no VmRSS for pid ${child.pid}`);
      return Number(kb[1]) * 1024;
    },
    output: () => text,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await pumps;
    },
  };
}
