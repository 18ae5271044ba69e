/**
 * Compression off the event loop: one lazily started worker thread (`compression_thread.ts`)
 * that takes brotli and gzip jobs in order. Deno's `node:zlib` callback API still compresses on
 * the calling thread (measured: `brotliCompress` returned only after its 36 ms of work), so a
 * quality-11 bundle or a quality-10 render prefix compressed "asynchronously" stalled every
 * request meanwhile. The worker is unref'd: it never keeps a process alive.
 *
 * The thread is replaced after `RECYCLE_AFTER_JOBS` jobs, once it is idle. Deno's brotli encoder
 * keeps its native state until V8 collects its JavaScript wrapper, and the thread's own heap
 * hardly grows, so its V8 seldom collects: from 4,000 to 24,000 quality-10 jobs on 6 KB prefixes
 * the process grew by 126 MB. Terminating the thread frees everything it held: replaced every
 * 1,000 jobs, the same run grew by 13 MB (docs/performance.md).
 */

/** One job for the compression thread. */
export interface CompressionJob {
  id: number;
  coding: "br" | "gzip";
  /** brotli quality (0–11) or gzip level (1–9). */
  quality: number;
  /** brotli only: end with a flush, not a finish (an unfinished stream a tail can follow). */
  flush?: boolean;
  bytes: Uint8Array;
}

/** The thread's answer to a job. */
export type CompressionReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

interface Pending {
  resolve(bytes: Uint8Array<ArrayBuffer>): void;
  reject(err: Error): void;
}

/** Jobs a compression thread takes before it is replaced (when idle; see the module comment). */
export const RECYCLE_AFTER_JOBS = 1000;

let worker: Worker | undefined;
let nextId = 1;
/** Jobs handed to the current thread, and threads started so far. */
let jobsOnThread = 0;
let started = 0;
const pending = new Map<number, Pending>();

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL("./compression_thread.ts", import.meta.url), { type: "module" });
  started++;
  jobsOnThread = 0;
  w.onmessage = ({ data }: MessageEvent<CompressionReply>) => {
    const job = pending.get(data.id);
    if (!job) return;
    pending.delete(data.id);
    if ("error" in data) job.reject(new Error(data.error));
    else job.resolve(data.bytes as Uint8Array<ArrayBuffer>);
    if (pending.size > 0) return;
    unref(w);
    if (jobsOnThread >= RECYCLE_AFTER_JOBS) {
      // Idle: nothing is lost. The next job starts a fresh thread.
      worker = undefined;
      w.terminate();
    }
  };
  w.onerror = (event) => {
    event.preventDefault();
    const err = new Error(`compression thread failed: ${event.message}`);
    for (const job of pending.values()) job.reject(err);
    pending.clear();
    worker = undefined;
    w.terminate();
  };
  worker = w;
  return w;
}

/** Deno's workers can be unref'd (they then never keep the process alive); no-op elsewhere. */
function unref(w: Worker): void {
  (w as Worker & { unref?: () => void }).unref?.();
}

function ref(w: Worker): void {
  (w as Worker & { ref?: () => void }).ref?.();
}

/**
 * `bytes` compressed on the compression thread (a copy is sent: the caller keeps its bytes).
 *
 * @example
 * ```ts
 * const packed = await compressOffThread(bundle, { coding: "br", quality: 11 });
 * ```
 */
export function compressOffThread(
  bytes: Uint8Array,
  options: { coding: "br" | "gzip"; quality: number; flush?: boolean },
): Promise<Uint8Array<ArrayBuffer>> {
  const w = thread();
  const id = nextId++;
  jobsOnThread++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    ref(w);
    const copy = bytes.slice();
    w.postMessage({ id, ...options, bytes: copy } satisfies CompressionJob, [copy.buffer]);
  });
}

/** Compression threads started so far in this process (tests; one is replaced when recycled). */
export function compressionThreadsStarted(): number {
  return started;
}
