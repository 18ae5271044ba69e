/**
 * Evaluation off the request thread: a pool of Web Workers (kernel_worker.ts), each with its own
 * manifold-3d module, one job at a time each. Each job belongs to a tenant (a token and its
 * partner): admission.ts decides at once whether it is taken (per-token and per-partner limits,
 * an expected wait within a bound, a hard cap on waiting jobs) or refused with `kernel_busy` (503,
 * with `Retry-After`), and fair_queue.ts decides which waiting job a free worker takes next
 * (round-robin across partners, then tokens), so one token's flood cannot hold every worker or
 * push everyone else's renders out, and a burst costs memory bounded by the caps.
 *
 * A job that runs past its deadline cannot be interrupted inside WASM, so its worker is
 * terminated (that frees the whole module's memory) and replaced by a fresh one, and the job is
 * rejected with `render_timeout`; other jobs go on. A worker that crashes is contained the same
 * way (`internal_error`). Workers start on demand, up to the pool size, and stay warm.
 */
import { Admission, type AdmissionLimits, admissionLimits, type AdmittedJob } from "./admission.ts";
import {
  EvalError,
  type EvalErrorCode,
  type EvalErrorReason,
  fromWireError,
} from "./eval_errors.ts";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "./eval_limits.ts";
import { DEFAULT_SOLID_CACHE_LIMITS } from "./solid_cache.ts";
import { FairQueue, type Tenant } from "./fair_queue.ts";
import { type DagSource, shapeOf, type WorkerJob, type WorkerReply } from "./worker_protocol.ts";
import type { Scene } from "../dag/scene.ts";
import type { ExportFormat } from "../dag/export_format.ts";

/** Options of a WorkerPool. */
export interface WorkerPoolOptions {
  /** Workers at most; default `navigator.hardwareConcurrency` clamped to 1–8. */
  size?: number;
  /** Jobs that may wait beyond the free workers, whatever their wait; default 32 per worker. */
  maxQueue?: number;
  /** Admission limits (admission.ts); unset or 0 members take their defaults. */
  admission?: Partial<Omit<AdmissionLimits, "maxQueued">>;
  /** Expected evaluation time before any has been timed (ms); default 250. */
  initialEstimateMs?: number;
  /**
   * How long a job may wait in the queue (ms); default the later of its own `deadlineMs` and the
   * admission's `maxWaitMs` (a job with a short evaluation deadline, e.g. python mode, is not
   * refused sooner than the wait it was admitted under).
   */
  queueTimeoutMs?: number;
  /** Limits every job is evaluated under; default docs/dag.md's. */
  limits?: Partial<EvalLimits>;
  /**
   * Triangles each worker may keep between renders to reuse (solid_cache.ts); default
   * `DEFAULT_SOLID_CACHE_LIMITS.maxTriangles`, 0 turns reuse off.
   */
  reuseTriangles?: number;
  /** Called with the number of solids a render took from its worker's cache, when not 0. */
  onReused?: (count: number) => void;
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
  /** Whose job this is (token `jti`, partner); without one the job is a tenant of its own. */
  tenant?: Tenant;
}

/** A snapshot of the pool, for metrics and tests. */
export interface WorkerPoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** The moving average of evaluation time (ms) that expected waits are computed from. */
  averageMs: number;
  /** Workers replaced after a deadline, a crash or an abort since the pool started. */
  replaced: number;
  /** Nodes workers took from their solid caches instead of evaluating (solid_cache.ts). */
  reusedNodes: number;
}

/** The default pool size: the machine's cores, at least 1, at most 8. */
export function defaultPoolSize(): number {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.min(8, Math.max(1, Math.floor(cores) || 1));
}

interface Job extends AdmittedJob {
  id: number;
  dag: DagSource;
  deadlineMs: number;
  signal?: AbortSignal;
  limits: EvalLimits;
  export?: WorkerJob["export"];
  resolve(result: Scene | Uint8Array): void;
  reject(err: unknown): void;
  timer?: ReturnType<typeof setTimeout>;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  /** The template shape of the last render it ran (its solid cache holds that shape's solids). */
  lastShape?: string;
}

/**
 * A pool of render workers with fair admission.
 *
 * @example
 * ```ts
 * const pool = new WorkerPool({ size: 2 });
 * const scene = await pool.evaluate(dag, {
 *   deadlineMs: 10_000,
 *   tenant: { token: claims.jti, partner: claims.partner },
 * });
 * await pool.close();
 * ```
 */
export class WorkerPool {
  /** Workers at most. */
  readonly size: number;
  readonly #queueTimeoutMs?: number;
  readonly #limits: EvalLimits;
  readonly #reuseTriangles: number;
  readonly #onReused?: (count: number) => void;
  readonly #workerUrl: string;
  readonly #slots: Slot[] = [];
  readonly #queue: FairQueue<Job>;
  readonly #admission: Admission;
  #nextId = 1;
  #replaced = 0;
  #reusedNodes = 0;
  #closed = false;

  /** Builds the pool; no worker starts until the first job (or `warm()`). */
  constructor(options: WorkerPoolOptions = {}) {
    this.size = Math.min(64, Math.max(1, Math.floor(options.size ?? defaultPoolSize())));
    const limits = admissionLimits(this.size, {
      ...options.admission,
      maxQueued: options.maxQueue,
    });
    this.#admission = new Admission(this.size, limits, options.initialEstimateMs);
    this.#queue = new FairQueue(limits.tokenRunning);
    this.#queueTimeoutMs = options.queueTimeoutMs;
    this.#limits = { ...DEFAULT_EVAL_LIMITS, ...options.limits };
    this.#reuseTriangles = Math.max(
      0,
      options.reuseTriangles ?? DEFAULT_SOLID_CACHE_LIMITS.maxTriangles,
    );
    this.#onReused = options.onReused;
    this.#workerUrl = String(options.workerUrl ?? new URL("./kernel_worker.ts", import.meta.url));
  }

  /** The admission limits in force (admission.ts). */
  get admissionLimits(): Readonly<AdmissionLimits> {
    return this.#admission.limits;
  }

  /**
   * Evaluates a validated DAG (or the checked JSON text holding it) on a worker. Rejects with an
   * EvalError: the evaluation's own (`invalid_dag`, `render_failed`), `render_timeout` past the
   * deadline, `kernel_busy` when it is not admitted (admission.ts), waits in the queue past its
   * time or the pool closes, `internal_error` when the worker crashed. Capacity and deadline
   * errors carry `retryAfter`.
   */
  evaluate(dag: DagSource, options: PoolEvaluateOptions = {}): Promise<Scene> {
    return this.#run(dag, options) as Promise<Scene>;
  }

  /**
   * Evaluates a validated DAG on a worker and builds its export file there from the exact
   * geometry (lib/kernel/export/); admitted, queued, timed and rejected exactly as `evaluate`.
   * `title` names the model inside the file.
   */
  exportFile(
    dag: DagSource,
    format: ExportFormat,
    title: string,
    options: PoolEvaluateOptions = {},
  ): Promise<Uint8Array> {
    return this.#run(dag, options, { format, title }) as Promise<Uint8Array>;
  }

  #run(
    dag: DagSource,
    options: PoolEvaluateOptions,
    wanted?: WorkerJob["export"],
  ): Promise<Scene | Uint8Array> {
    if (this.#closed) return Promise.reject(busy("pool_closed", "The render pool is closed.", 1));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const tenant = options.tenant ?? { token: `#${id}`, partner: `#${id}` };
    let estimateMs: number;
    try {
      estimateMs = this.#admission.admit(this.#queue, tenant, performance.now());
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<Scene | Uint8Array>((resolve, reject) => {
      const job: Job = {
        id,
        tenant,
        estimateMs,
        dag,
        export: wanted,
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
      this.#queue.push(job);
      job.timer = setTimeout(() => {
        this.#queue.release(job);
        const wait = this.#admission.expectedWait(this.#queue, tenant, performance.now());
        this.#settle(
          job,
          busy("queue_timeout", "No render worker became free in time.", wait / 1000),
        );
      }, this.#queueTimeoutMs ?? Math.max(job.deadlineMs, this.#admission.limits.maxWaitMs));
      this.#pump();
    });
  }

  /** Starts every worker now and resolves when all are ready (optional: they start on demand). */
  async warm(): Promise<void> {
    while (!this.#closed && this.#slots.length < this.size) this.#spawn();
    while (!this.#closed && this.#slots.some((slot) => !slot.ready)) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Counts of workers, busy workers and queued jobs, and the average evaluation time. */
  stats(): WorkerPoolStats {
    return {
      workers: this.#slots.length,
      busy: this.#slots.filter((slot) => slot.job).length,
      queued: this.#queue.queued,
      averageMs: this.#admission.averageMs,
      replaced: this.#replaced,
      reusedNodes: this.#reusedNodes,
    };
  }

  /** Terminates every worker; queued and running jobs are rejected with `kernel_busy`. */
  close(): Promise<void> {
    this.#closed = true;
    const error = () => busy("pool_closed", "The render pool is closing.", 1);
    for (const job of this.#queue.drain()) this.#settle(job, error());
    for (const slot of this.#slots.splice(0)) {
      slot.worker.terminate();
      if (slot.job) this.#settle(slot.job, error());
    }
    return Promise.resolve();
  }

  /** Starts workers for queued jobs, up to the pool size. */
  #grow(): void {
    const starting = this.#slots.filter((slot) => !slot.ready).length;
    let wanted = this.#queue.queued - starting;
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
    if (reply.type === "result") {
      const reused = reply.reused ?? 0;
      if (reused > 0) {
        this.#reusedNodes += reused;
        this.#onReused?.(reused);
      }
      this.#settle(job, undefined, JSON.parse(reply.json) as Scene);
    } else if (reply.type === "file") this.#settle(job, undefined, reply.bytes);
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
      // next queued job, and a new worker starts only while jobs wait. (When no queued job may
      // run now, its token's running job has a worker, which will take it.)
      const job = this.#queue.next();
      this.#replace(slot, false);
      if (job) {
        this.#settle(
          job,
          failure("internal_error", "worker_failed", "A render worker failed to start."),
        );
        this.#grow();
      }
      return;
    }
    this.#replace(slot);
  }

  /** Runs a job the fair queue handed out (already counted as running there) on `slot`. */
  #dispatch(slot: Slot, job: Job): void {
    clearTimeout(job.timer);
    slot.job = job;
    job.startedAt = performance.now();
    job.timer = setTimeout(() => {
      if (slot.job !== job) return;
      slot.job = undefined;
      this.#settle(
        job,
        // A render that held a worker for its whole deadline is not welcome back sooner.
        new EvalError(
          "render_timeout",
          "deadline",
          `The render ran past its ${job.deadlineMs} ms deadline.`,
          { retryAfter: job.deadlineMs / 1000 },
        ),
      );
      this.#replace(slot);
    }, job.deadlineMs);
    const message: WorkerJob = {
      id: job.id,
      dag: job.dag,
      limits: job.limits,
      reuseTriangles: this.#reuseTriangles,
    };
    if (job.export) message.export = job.export;
    slot.worker.postMessage(message);
  }

  /** Hands queued jobs to ready idle workers in the fair order. */
  #pump(): void {
    for (;;) {
      const idle = this.#slots.filter((slot) => slot.ready && !slot.job);
      if (idle.length === 0) break;
      const job = this.#queue.next();
      if (!job) break;
      // Among idle workers, the one that last rendered this template: its solid cache is warm
      // for it (solid_cache.ts), so a shopper's next change finds the solids it can reuse there.
      const shape = job.export ? undefined : shapeOf(job.dag);
      const slot = (shape !== undefined && idle.find((s) => s.lastShape === shape)) || idle[0];
      if (shape !== undefined) slot.lastShape = shape;
      this.#dispatch(slot, job);
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
    if (slot) slot.job = undefined;
    this.#settle(job, job.signal!.reason);
    if (slot) this.#replace(slot);
  }

  /**
   * Resolves or rejects a job exactly once, drops its timer and abort listener, takes it out of
   * the fair queue and, if it ran, times it for the admission estimates.
   */
  #settle(job: Job, error: unknown, result?: Scene | Uint8Array): void {
    clearTimeout(job.timer);
    job.timer = undefined;
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    job.onAbort = undefined;
    if (this.#queue.release(job) === "running" && job.startedAt !== undefined) {
      this.#admission.observe(job.tenant, performance.now() - job.startedAt);
    }
    const { resolve, reject } = job;
    job.resolve = job.reject = () => {};
    if (result) resolve(result);
    else reject(error);
  }
}

function failure(code: EvalErrorCode, reason: EvalErrorReason, message: string): EvalError {
  return new EvalError(code, reason, message);
}

function busy(reason: EvalErrorReason, message: string, retryAfter: number): EvalError {
  return new EvalError("kernel_busy", reason, message, { retryAfter });
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
