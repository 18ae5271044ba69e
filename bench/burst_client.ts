/**
 * A render client in its own Deno process, for render-flight's bursts of concurrent renders: like
 * the load generator (`load.ts`), it keeps the client's CPU (reading and parsing 32 answers) off
 * the server's event loop, as it is in production, where browsers are the clients. (render-cold
 * keeps its one request in process: there the client only waits while a worker evaluates, and on
 * two CPUs a client process would compete with the server and the worker for them.) The bench process sends one JSON line per burst
 * on stdin — `{url, headers, body, count}` — and reads one line back: the wall time from the first
 * request sent to the last response read, and each response's status and `cache` member (parsed
 * after the clock stops).
 *
 * `deno run -A bench/burst_client.ts` (driven by `BurstClient`).
 */
import { fileURLToPath } from "node:url";

/** One burst: `count` identical POSTs sent at once. */
export interface Burst {
  url: string;
  headers: Record<string, string>;
  body: string;
  count: number;
}

/** What one burst measured. */
export interface BurstResult {
  /** First request sent → last response body read. */
  ms: number;
  /** Status of each response. */
  statuses: number[];
  /** `cache` of each 200 response (`l1`, `l2`, `miss`). */
  caches: string[];
  /** `scene.triangles` of the first 200 response. */
  triangles: number;
  /** A sample non-200 body, to say why. */
  sampleError?: string;
}

/** Sends bursts through a client subprocess; `close()` ends it. */
export class BurstClient {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: AsyncIterator<string>;

  /** Starts the client process. */
  constructor() {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", fileURLToPath(import.meta.url)],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = readLines(this.#child.stdout)[Symbol.asyncIterator]();
  }

  /** Runs one burst in the client process. */
  async send(burst: Burst): Promise<BurstResult> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(burst) + "\n"));
    const next = await this.#lines.next();
    if (next.done) throw new Error("the burst client exited");
    return JSON.parse(next.value) as BurstResult;
  }

  /** Ends the client process. */
  async close(): Promise<void> {
    await this.#writer.close();
    await this.#child.status;
  }
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncIterable<string> {
  let buffered = "";
  const decoder = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>;
  for await (const chunk of stream.pipeThrough(decoder)) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) !== -1) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
}

async function runBurst(burst: Burst): Promise<BurstResult> {
  const init: RequestInit = { method: "POST", headers: burst.headers, body: burst.body };
  const t0 = performance.now();
  const answers = await Promise.all(
    Array.from({ length: burst.count }, async () => {
      const res = await fetch(burst.url, init);
      return { status: res.status, text: await res.text() };
    }),
  );
  const ms = performance.now() - t0;
  const caches: string[] = [];
  let triangles = 0;
  let sampleError: string | undefined;
  for (const { status, text } of answers) {
    if (status !== 200) {
      sampleError ??= text.slice(0, 300);
      continue;
    }
    const body = JSON.parse(text);
    caches.push(body.cache);
    triangles ||= body.scene.triangles;
  }
  return {
    ms,
    statuses: answers.map((a) => a.status),
    caches,
    triangles,
    ...(sampleError === undefined ? {} : { sampleError }),
  };
}

if (import.meta.main) {
  for await (const line of readLines(Deno.stdin.readable)) {
    if (line.trim() === "") continue;
    console.log(JSON.stringify(await runBurst(JSON.parse(line) as Burst)));
  }
}
