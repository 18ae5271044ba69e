/** The product's real entry point (`main.ts`) as a subprocess, for figures of the whole process. */

const ROOT = new URL("../", import.meta.url).pathname;

/** A running `main.ts` subprocess. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size of the process now, in bytes (Linux `/proc/<pid>/status` VmRSS). */
  rss(): Promise<number>;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `deno run -A main.ts` with `env` on an ephemeral port and waits until it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
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
