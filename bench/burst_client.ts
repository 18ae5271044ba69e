/**
 * A render client in its own Deno process, for render-flight's bursts of concurrent renders: like
 * the load generator (`load.ts`), it keeps the client's CPU (reading and parsing 32 answers) off
 * the server's event loop, as it is in production, where browsers are the clients. (render-cold
 * keeps its one request in process: there the client only waits while a worker evaluates, and on
 * two CPUs a client process would compete with the server and the worker for them.) The bench process sends one JSON line per burst
 * on stdin — `{url, headers, body, count}` — and reads one line back: the wall time from the first
 * request sent to the last response read, and each response's status and `cache` member (parsed
 * after the clock stops). render-capacity sends `{url, clients}` instead (`ClientLoops`): each
 * client sends its own requests one after another, all clients at once, and the answer counts
 * what was served and what was refused, by problem `code`/`reason` (`LoopsResult`).
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

/** Clients that each send their own requests in turn, all at once (render-capacity). */
export interface ClientLoops {
  url: string;
  clients: { headers: Record<string, string>; bodies: string[] }[];
}

/** What one run of client loops measured. */
export interface LoopsResult {
  /** First request sent → last response body read. */
  ms: number;
  /** 200 answers, and how many of them said `cache: "miss"`. */
  served: number;
  misses: number;
  /** Non-200 answers by `status code/reason` (e.g. `503 kernel_busy/queue_full`). */
  refusals: Record<string, number>;
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

  /** The client process's id (its CPU time is read by render-capacity). */
  get pid(): number {
    return this.#child.pid;
  }

  /** Runs one burst in the client process. */
  async send(burst: Burst): Promise<BurstResult> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(burst) + "\n"));
    const next = await this.#lines.next();
    if (next.done) throw new Error("the burst client exited");
    return JSON.parse(next.value) as BurstResult;
  }

  /** Runs client loops in the client process. */
  async loops(loops: ClientLoops): Promise<LoopsResult> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(loops) + "\n"));
    const next = await this.#lines.next();
    if (next.done) throw new Error("the burst client exited");
    return JSON.parse(next.value) as LoopsResult;
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

async function runLoops(loops: ClientLoops): Promise<LoopsResult> {
  const answers: { status: number; text: string }[] = [];
  const t0 = performance.now();
  await Promise.all(loops.clients.map(async ({ headers, bodies }) => {
    for (const body of bodies) {
      const res = await fetch(loops.url, { method: "POST", headers, body });
      answers.push({ status: res.status, text: await res.text() });
    }
  }));
  const ms = performance.now() - t0;
  const out: LoopsResult = { ms, served: 0, misses: 0, refusals: {} };
  for (const { status, text } of answers) {
    if (status === 200) {
      out.served++;
      if (JSON.parse(text).cache === "miss") out.misses++;
      continue;
    }
    out.sampleError ??= text.slice(0, 300);
    let why = "";
    try {
      const problem = JSON.parse(text);
      why = `${problem.code}/${problem.reason}`;
    } catch {
      why = "unparsed";
    }
    const key = `${status} ${why}`;
    out.refusals[key] = (out.refusals[key] ?? 0) + 1;
  }
  return out;
}

if (import.meta.main) {
  for await (const line of readLines(Deno.stdin.readable)) {
    if (line.trim() === "") continue;
    const message = JSON.parse(line) as Burst | ClientLoops;
    const answer = "clients" in message ? await runLoops(message) : await runBurst(message);
    console.log(JSON.stringify(answer));
  }
}
