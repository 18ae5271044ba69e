/**
 * Evaluation off the request thread: a pool of Web Workers (kernel_worker.ts), each with its own
 * manifold-3d module, one job at a time each. Jobs beyond the free workers wait in a bounded
 * queue; beyond the queue they are refused at once with `kernel_busy` (503), so a burst costs
 * memory proportional to the queue, not to the burst.
 *
 * A job that runs past its deadline cannot be interrupted inside WASM, so its worker is
 * terminated (that frees the whole module's memory) and replaced by a fresh one, and the job is
 * rejected with `render_timeout`; other jobs go on. A worker that crashes is contained the same
 * way (`internal_error`). Workers start on demand, up to the pool size, and stay warm.
 */
import type { Dag } from "./dag_types.ts";
import {
  EvalError,
  type EvalErrorCode,
  type EvalErrorReason,
  fromWireError,
} from "./eval_errors.ts";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "./evaluate.ts";
import type { WorkerJob, WorkerReply } from "./kernel_worker.ts";
import type { Scene } from "./scene.ts";

/** Options of a WorkerPool. */
export interface WorkerPoolOptions {
  /** Workers at most; default `navigator.hardwareConcurrency` clamped to 1–8. */
  size?: number;
  /** Jobs that may wait for a worker; default 4 per worker. */
  maxQueue?: number;
  /** How long a job may wait in the queue (ms); default its own `deadlineMs`. */
  queueTimeoutMs?: number;
  /** Limits every job is evaluated under; default docs/dag.md's. */
  limits?: Partial<EvalLimits>;
  /** The worker module (tests substitute one); default kernel_worker.ts. */
  workerUrl?: string | URL;
}

/** Options of one evaluation. */
export interface PoolEvaluateOptions {
  /** Wall-clock run time before the worker is killed (ms); default 10 000. */
  deadlineMs?: number;
  /** Aborting rejects the job with the signal's reason (killing its worker if it runs). */
  signal?: AbortSignal;
  /** Limits for this job, over the pool's (python-mode DAGs get stricter ones). */
  limits?: Partial<EvalLimits>;
}

/** A snapshot of the pool, for metrics and tests. */
export interface WorkerPoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** Workers replaced after a deadline, a crash or an abort since the pool started. */
  replaced: number;
}

/** The default pool size: the machine's cores, at least 1, at most 8. */
export function defaultPoolSize(): number {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.min(8, Math.max(1, Math.floor(cores) || 1));
}

interface Job {
  id: number;
  dag: Dag;
  deadlineMs: number;
  signal?: AbortSignal;
  limits: EvalLimits;
  resolve(scene: Scene): void;
  reject(err: unknown): void;
  timer?: ReturnType<typeof setTimeout>;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
}

/**
 * A pool of render workers.
 *
 * @example
 * ```ts
 * const pool = new WorkerPool({ size: 2 });
 * const scene = await pool.evaluate(dag, { deadlineMs: 10_000 });
 * await pool.close();
 * ```
 */
export class WorkerPool {
  /** Workers at most. */
  readonly size: number;
  readonly #maxQueue: number;
  readonly #queueTimeoutMs?: number;
  readonly #limits: EvalLimits;
  readonly #workerUrl: string;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #replaced = 0;
  #closed = false;

  /** Builds the pool; no worker starts until the first job (or `warm()`). */
  constructor(options: WorkerPoolOptions = {}) {
    this.size = Math.min(64, Math.max(1, Math.floor(options.size ?? defaultPoolSize())));
    this.#maxQueue = Math.max(0, Math.floor(options.maxQueue ?? this.size * 4));
    this.#queueTimeoutMs = options.queueTimeoutMs;
    this.#limits = { ...DEFAULT_EVAL_LIMITS, ...options.limits };
    this.#workerUrl = String(options.workerUrl ?? new URL("./kernel_worker.ts", import.meta.url));
  }

  /**
   * Evaluates a validated DAG on a worker. Rejects with an EvalError: the evaluation's own
   * (`invalid_dag`, `render_failed`), `render_timeout` past the deadline, `kernel_busy` when the
   * queue is full or the pool closes, `internal_error` when the worker crashed.
   */
  evaluate(dag: Dag, options: PoolEvaluateOptions = {}): Promise<Scene> {
    if (this.#closed) return Promise.reject(busy("pool_closed", "The render pool is closed."));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const idle = this.#slots.find((slot) => slot.ready && !slot.job);
    // Jobs that a free or not yet started worker will take soon do not count against the queue.
    const free = this.size - this.#slots.filter((slot) => slot.job).length;
    if (!idle && this.#queue.length >= this.#maxQueue + free) {
      return Promise.reject(busy("queue_full", "Every render worker is busy; retry shortly."));
    }
    return new Promise<Scene>((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        dag,
        deadlineMs: Math.max(1, options.deadlineMs ?? 10_000),
        signal,
        limits: jobLimits(this.#limits, options.limits),
        resolve,
        reject,
      };
      if (signal) {
        job.onAbort = () => this.#abort(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      if (idle) {
        this.#dispatch(idle, job);
        return;
      }
      this.#queue.push(job);
      const wait = this.#queueTimeoutMs ?? job.deadlineMs;
      job.timer = setTimeout(() => {
        this.#unqueue(job);
        this.#settle(job, busy("queue_timeout", "No render worker became free in time."));
      }, wait);
      this.#grow();
    });
  }

  /** Starts every worker now and resolves when all are ready (optional: they start on demand). */
  async warm(): Promise<void> {
    while (!this.#closed && this.#slots.length < this.size) this.#spawn();
    while (!this.#closed && this.#slots.some((slot) => !slot.ready)) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Counts of workers, busy workers and queued jobs. */
  stats(): WorkerPoolStats {
    return {
      workers: this.#slots.length,
      busy: this.#slots.filter((slot) => slot.job).length,
      queued: this.#queue.length,
      replaced: this.#replaced,
    };
  }

  /** Terminates every worker; queued and running jobs are rejected with `kernel_busy`. */
  close(): Promise<void> {
    this.#closed = true;
    const error = () => busy("pool_closed", "The render pool is closing.");
    for (const job of this.#queue.splice(0)) this.#settle(job, error());
    for (const slot of this.#slots.splice(0)) {
      slot.worker.terminate();
      if (slot.job) this.#settle(slot.job, error());
    }
    return Promise.resolve();
  }

  /** Starts workers for queued jobs, up to the pool size. */
  #grow(): void {
    const starting = this.#slots.filter((slot) => !slot.ready).length;
    let wanted = this.#queue.length - starting;
    while (wanted-- > 0 && this.#slots.length < this.size) this.#spawn();
  }

  #spawn(): Slot {
    const worker = new Worker(this.#workerUrl, { type: "module" });
    const slot: Slot = { worker, ready: false };
    worker.onmessage = (event: MessageEvent<WorkerReply>) => this.#onMessage(slot, event.data);
    worker.onerror = (event: ErrorEvent) => {
      // Without this the error would propagate to this thread and end the process.
      event.preventDefault();
      this.#onCrash(slot);
    };
    worker.onmessageerror = () => this.#onCrash(slot);
    this.#slots.push(slot);
    return slot;
  }

  #onMessage(slot: Slot, reply: WorkerReply): void {
    if (!this.#slots.includes(slot)) return; // a terminated worker's last word
    if (reply.type === "ready") {
      slot.ready = true;
      this.#pump();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    slot.job = undefined;
    if (reply.type === "result") this.#settle(job, undefined, reply.scene);
    else {
      this.#settle(job, fromWireError(reply.error));
      if (reply.fatal) return this.#replace(slot);
    }
    this.#pump();
  }

  /** An uncaught error, an unreadable message or a failed start: contain it and move on. */
  #onCrash(slot: Slot): void {
    if (!this.#slots.includes(slot)) return;
    if (slot.job) {
      this.#settle(
        slot.job,
        failure("internal_error", "worker_crashed", "The render worker crashed."),
      );
      slot.job = undefined;
    } else if (!slot.ready) {
      // A worker that cannot start must not be restarted forever: each failed start costs the
      // oldest queued job, and a new worker starts only while jobs wait.
      const job = this.#queue.shift();
      if (job) {
        this.#settle(
          job,
          failure("internal_error", "worker_failed", "A render worker failed to start."),
        );
      }
      this.#replace(slot, false);
      this.#grow();
      return;
    }
    this.#replace(slot);
  }

  #dispatch(slot: Slot, job: Job): void {
    clearTimeout(job.timer);
    slot.job = job;
    job.timer = setTimeout(() => {
      if (slot.job !== job) return;
      slot.job = undefined;
      this.#settle(
        job,
        failure(
          "render_timeout",
          "deadline",
          `The render ran past its ${job.deadlineMs} ms deadline.`,
        ),
      );
      this.#replace(slot);
    }, job.deadlineMs);
    const message: WorkerJob = { id: job.id, dag: job.dag, limits: job.limits };
    slot.worker.postMessage(message);
  }

  /** Hands queued jobs to ready idle workers, oldest first. */
  #pump(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) break;
      if (slot.ready && !slot.job) this.#dispatch(slot, this.#queue.shift()!);
    }
    this.#grow();
  }

  /** Terminates a worker and starts a fresh one in its place (the pool keeps its capacity). */
  #replace(slot: Slot, respawn = true): void {
    slot.worker.terminate();
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    this.#replaced++;
    if (this.#closed || !respawn) return;
    this.#spawn();
    this.#pump();
  }

  #abort(job: Job): void {
    const slot = this.#slots.find((s) => s.job === job);
    if (slot) {
      slot.job = undefined;
      this.#settle(job, job.signal!.reason);
      this.#replace(slot);
    } else if (this.#unqueue(job)) {
      this.#settle(job, job.signal!.reason);
    }
  }

  #unqueue(job: Job): boolean {
    const i = this.#queue.indexOf(job);
    if (i < 0) return false;
    this.#queue.splice(i, 1);
    return true;
  }

  /** Resolves or rejects a job exactly once and drops its timer and abort listener. */
  #settle(job: Job, error: unknown, scene?: Scene): void {
    clearTimeout(job.timer);
    job.timer = undefined;
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    job.onAbort = undefined;
    const { resolve, reject } = job;
    job.resolve = job.reject = () => {};
    if (scene) resolve(scene);
    else reject(error);
  }
}

function failure(code: EvalErrorCode, reason: EvalErrorReason, message: string): EvalError {
  return new EvalError(code, reason, message);
}

function busy(reason: EvalErrorReason, message: string): EvalError {
  return new EvalError("kernel_busy", reason, message);
}

/** The pool's limits with a job's overrides (only the keys evaluation knows). */
function jobLimits(base: EvalLimits, overrides: Partial<EvalLimits> = {}): EvalLimits {
  const out = { ...base };
  for (const key of Object.keys(base) as (keyof EvalLimits)[]) {
    const value = overrides[key];
    if (typeof value === "number") out[key] = value;
  }
  return out;
}
