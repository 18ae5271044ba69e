/** Running the product's real entry points (`main.ts`, `cli.ts`) as subprocesses. */

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

/** A `main.ts` subprocess and the URL it listens on. */
export interface ServerProcess {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `deno run -A main.ts` with `env` (PORT=0) and waits for its "listening" log line. */
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
    output: () => text,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await pumps;
    },
  };
}
